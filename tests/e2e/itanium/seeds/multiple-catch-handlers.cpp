// The C++ of the seed's "Try-catch with multiple catch handlers" (listings 35 and 36),
// which the seed gives only as CIR. The listings call `f` by its unmangled name.
void f_unmangled() __asm__("f");

void someFunc() {
  try {
    f_unmangled();
  } catch (int) {
  } catch (float) {
  } catch (...) {
  }
}
