// Range-for over arrays of objects; a throw mid-loop destroys the loop's copies.
#include <cstdio>

struct Item {
  int value;
  Item(int v) : value(v) { std::printf("Item(%d)\n", value); }
  Item(const Item &other) : value(other.value) { std::printf("copy Item(%d)\n", value); }
  ~Item() { std::printf("~Item(%d)\n", value); }
};

static int check(const Item &item) {
  if (item.value < 0)
    throw item.value;
  return item.value;
}

int main() {
  int raw[] = {3, 1, 4, 1, 5};
  int sum = 0;
  for (int v : raw)
    sum += v;
  std::printf("sum %d\n", sum);
  Item items[] = {Item(1), Item(-2), Item(3)};
  try {
    for (Item copy : items)
      std::printf("checked %d\n", check(copy));
  } catch (int bad) {
    std::printf("bad value %d\n", bad);
  }
  for (const Item &ref : items)
    std::printf("still %d\n", ref.value);
  return sum;
}
