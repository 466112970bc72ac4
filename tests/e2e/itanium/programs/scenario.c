/* Linked into every native build of these programs: `scenario()` says which case of a
 * program runs (from EHIR_SCENARIO; `ehir run` scripts it with `--returns
 * @scenario=N`), and stdout is unbuffered so output written before std::terminate
 * aborts the process is not lost. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void unbuffered_stdout(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
}

int scenario(void) {
  const char *s = getenv("EHIR_SCENARIO");
  return s ? atoi(s) : 0;
}
