// A handler for a type an earlier handler of the same try already catches never runs:
// it is dropped (g++ and Clang warn and do the same) instead of producing a `cir.try`
// that catches the type twice, which the verifier rejects.
// RUN: %ehir opt %s | FileCheck %s
extern "C" int printf(const char *, ...);

int main() {
  try {
    throw 1;
  } catch (int &e) {
    printf("first %d\n", e);
  } catch (const int &e) {
    printf("second %d\n", e);
  } catch (...) {
    printf("all\n");
  }
  return 0;
}

// CHECK-LABEL: cir.func @main()
// CHECK:         cir.try {
// CHECK:         } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
// CHECK-NOT:     } catch [type #cir.global_view<@_ZTIi>
// CHECK:         } catch all {
