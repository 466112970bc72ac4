// The <string.h> functions the subset knows, used in an exception message class.
#include <stdio.h>
#include <string.h>

struct Message {
  char text[32];
  Message(const char* s) {
    strcpy(text, s);
    printf("Message(%s) length %d\n", text, (int)strlen(text));
  }
};

int main() {
  try {
    throw Message("disk full");
  } catch (const Message& m) {
    printf("caught: %s\n", m.text);
    printf("compare: %d %d\n", strcmp(m.text, "disk full") == 0, strcmp(m.text, "other") == 0);
  }
  return 0;
}
