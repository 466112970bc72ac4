// RUN: %ehir build --abi msvc -c %s -o %t.obj && llvm-nm --defined-only %t.obj | FileCheck %s --check-prefix=DEFINED
// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s --check-prefix=LLVM
// RUN: clang++-22 --target=x86_64-pc-windows-msvc -fms-extensions -nostdinc -isystem %S/../../../crates/ehir-clang/include/msvc \
// RUN:   -DCLANG_SIDE -c %s -o %t.clang.obj && \
// RUN:   llvm-nm --undefined-only %t.clang.obj | awk '{print $2}' | grep '^??1' | sort > %t.wanted && \
// RUN:   llvm-nm --defined-only %t.obj | awk '{print $3}' | sort > %t.defined && \
// RUN:   test -s %t.wanted && comm -23 %t.wanted %t.defined > %t.missing && \
// RUN:   (test ! -s %t.missing || (echo "called by the object of Clang for Windows, not defined by ehir:"; cat %t.missing; false))
// Destructors on the Microsoft target have the names Clang for Windows defines and calls
// them by: `??1` (Clang's AST names them by the "vbase destructor" `??_D`, which Clang's
// code uses only for classes with virtual bases), with the virtual access letter (`U`)
// when virtual (also when virtual only by overriding) and the declared access (`A`
// private, `I` protected). An object Clang for Windows compiles (the `CLANG_SIDE` half)
// links against what ehir defines, and a ThrowInfo names the destructor by that name.

struct Base { virtual ~Base(); };
struct Derived : Base { ~Derived(); };
class Private { ~Private(); friend void destroy_private(Private *); int x; };
class Protected { protected: ~Protected(); public: int y; };
struct Exposed : Protected { ~Exposed(); };
template <class T> struct Holder { T t; ~Holder(); };
struct Item { int v; };

#ifdef CLANG_SIDE
void destroy_private(Private *p) { p->~Private(); }
void use_all() {
  Derived d;
  Exposed e;
  Holder<Item> h;
  Base *b = new Derived;
  delete b;
}
#else
// DEFINED-DAG: T ??1Base@@UEAA@XZ
Base::~Base() {}
// DEFINED-DAG: T ??1Derived@@UEAA@XZ
Derived::~Derived() {}
// DEFINED-DAG: T ??1Private@@AEAA@XZ
Private::~Private() {}
// DEFINED-DAG: T ??1Protected@@IEAA@XZ
Protected::~Protected() {}
// DEFINED-DAG: T ??1Exposed@@QEAA@XZ
Exposed::~Exposed() {}
// DEFINED-DAG: T ??1?$Holder@UItem@@@@QEAA@XZ
template <class T> Holder<T>::~Holder() {}

// LLVM: @"_TI2?AUExposed@@{{[^"]*}}" = {{.*}}(ptr @"??1Exposed@@QEAA@XZ"
// LLVM-NOT: ??_D
int main() {
  Holder<Item> used;
  try {
    throw Exposed();
  } catch (Exposed &) {
  }
  return 0;
}
#endif
