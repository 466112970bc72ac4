//! Virtual functions and RTTI on the Microsoft ABI through the Clang front end (issue
//! #17), against Clang for Windows (`clang++-22 --target=x86_64-pc-windows-msvc`) on one
//! program: overloads of one name in a vftable, a pure virtual function, a final class in
//! a namespace, a non-polymorphic base after the vftable pointer, a base that occurs
//! twice (ambiguous), a class-specific `operator delete` reached through a virtual
//! destructor, `typeid` of objects and types, `dynamic_cast` of pointers, references
//! (`bad_cast`) and to `void *`, a thrown polymorphic object.
//!
//! - The vftables and RTTI objects of `ehir emit-llvm --abi msvc` are
//!   those of Clang for Windows: the same symbols (`??_7`, `??_R4`, `??_R3`, `??_R2`,
//!   `??_R1`, `??_R0`), each with the same fields (image-relative references by target,
//!   integers, decorated names; Clang's `??_E` vector deleting destructor, an alias of
//!   `??_G`, counts as `??_G`; `type_info`'s vftable is not compared).
//! - `ehir build --abi msvc` of the program behaves under wine as Clang for Windows' build,
//!   at `-O0` and `-O2`.
//!
//! - A Microsoft-target module of a program without the heap (the interpreter does not
//!   model msvcrt's `operator new`) — virtual calls, `typeid`, `dynamic_cast`, `bad_cast`,
//!   a by-value catch parameter whose copy constructor the runtime calls — interpreted at
//!   the structured, flat and MSVC phases prints what Clang for Windows' build prints
//!   under wine.
//!
//! Needs `clang++-22` (or `$EHIR_CLANG`/`$EHIR_CLANGXX`), llc, llvm-dlltool, lld-link and
//! wine; fails loudly without them.

mod common;

use common::windows::*;
use common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#include <cstdio>
#include <new>
#include <typeinfo>
struct P { int p = 7; };
struct A : P {
  virtual ~A() { std::printf("~A\n"); }
  virtual int f(int) { return 1; }
  virtual int g() { return 10; }
  virtual int f(double) { return 2; }
  virtual int f() = 0;
};
struct B : A {
  int f(int) override { return 3; }
  int f() override { return 4; }
  static void operator delete(void *p) {
    std::printf("B::operator delete\n");
    ::operator delete(p);
  }
};
namespace ns {
class In final : public B {
public:
  ~In() override { std::printf("~In\n"); }
  int g() override { return 20 + p; }
  virtual const char *h() const noexcept { return "In::h"; }
};
}
struct R { int r = 1; };
struct X : R { virtual ~X() {} virtual int x() const { return r; } };
struct Y : R { int y = 2; };
struct Z : X, Y { int x() const override { return 100 + y; } };
static int score(A &a) { return a.f(0) * 1000 + a.f(1.0) * 100 + a.f() * 10 + a.g(); }
int main() {
  ns::In in;
  B b;
  std::printf("score in %d b %d\n", score(in), score(b));
  A *pa = &in;
  std::printf("typeid in: %d %d %d\n", typeid(*pa) == typeid(ns::In), typeid(*pa) == typeid(B),
              typeid(in) == typeid(ns::In));
  std::printf("typeid int: %d, int*: %d\n", typeid(int) == typeid(int),
              typeid(int *) == typeid(long *));
  std::printf("cast In* %d, B* %d, In* from b %d\n", dynamic_cast<ns::In *>(pa) != nullptr,
              dynamic_cast<B *>(pa) != nullptr,
              dynamic_cast<ns::In *>(static_cast<A *>(&b)) != nullptr);
  std::printf("void* %d\n", dynamic_cast<void *>(pa) == static_cast<void *>(&in));
  try {
    ns::In &ref = dynamic_cast<ns::In &>(static_cast<A &>(b));
    std::printf("not reached %d\n", ref.g());
  } catch (std::bad_cast &) {
    std::printf("bad_cast\n");
  }
  Z z;
  X *px = &z;
  std::printf("z %d %d\n", px->x(), dynamic_cast<Z *>(px) != nullptr);
  A *heap = new ns::In;
  std::printf("heap h %s\n", static_cast<ns::In *>(heap)->h());
  delete heap;
  try {
    throw ns::In();
  } catch (A &a) {
    std::printf("caught A: g %d, is In %d\n", a.g(), typeid(a) == typeid(ns::In));
  }
  return 0;
}
"#;

/// A symbol at the start of `text` (`@` already read): quoted or plain; Clang's vector
/// deleting destructor `??_E…` is named as the scalar deleting destructor `??_G…` it
/// aliases.
fn symbol(text: &str) -> (String, usize) {
    let (name, len) = match text.strip_prefix('"') {
        Some(rest) => {
            let end = rest.find('"').unwrap_or(rest.len());
            (&rest[..end], end + 2)
        }
        None => {
            let end = text
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_.$".contains(c)))
                .unwrap_or(text.len());
            (&text[..end], end)
        }
    };
    (name.replace("??_E", "??_G"), len)
}

/// The fields of a global's initializer, in order: `rel(@X)` for an image-relative
/// reference, `i32 N`, `c"…"`, `ptr @X`, `ptr null` (the `type_info` vftable left out).
fn fields(init: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < init.len() {
        let rest = &init[at..];
        if rest.starts_with("i32 trunc (") {
            let Some(target) = rest.find("ptr @") else {
                break;
            };
            let (name, _) = symbol(&rest[target + 5..]);
            out.push(format!("rel(@{name})"));
            at += rest.find(" to i32)").map_or(rest.len(), |end| end + 8);
        } else if let Some(number) = rest.strip_prefix("i32 ").filter(|n| {
            n.trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_digit())
        }) {
            let len = number
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .unwrap_or(number.len());
            out.push(format!("i32 {}", &number[..len]));
            at += 4 + len;
        } else if let Some(text) = rest.strip_prefix("c\"") {
            let len = text.find('"').unwrap_or(text.len());
            out.push(format!("c\"{}\"", &text[..len]));
            at += len + 3;
        } else if let Some(target) = rest.strip_prefix("ptr @") {
            let (name, len) = symbol(target);
            if !name.contains("type_info") {
                out.push(format!("ptr @{name}"));
            }
            at += 5 + len;
        } else if rest.starts_with("ptr null") {
            out.push("ptr null".to_string());
            at += 8;
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// The vftables and RTTI objects an LLVM module defines, by symbol, with their fields.
/// Clang defines a vftable as a private global in the comdat of its `??_7` name (which an
/// alias into it carries); ehir as a global of that name.
fn rtti_objects(ll: &str) -> BTreeMap<String, Vec<String>> {
    let mut objects = BTreeMap::new();
    for line in ll.lines() {
        let Some(rest) = line.strip_prefix('@') else {
            continue;
        };
        if line.contains(" alias ") || line.contains(" external ") {
            continue;
        }
        let (mut name, len) = symbol(rest);
        if let Some(comdat) = line.split("comdat($\"").nth(1) {
            let comdat = &comdat[..comdat.find('"').unwrap_or(comdat.len())];
            if comdat.starts_with("??_7") {
                name = comdat.to_string();
            }
        }
        if name.starts_with("??_R") || name.starts_with("??_7") {
            objects.insert(name, fields(&rest[len..]));
        }
    }
    objects
}

fn clang_windows_ll(src: &Path, out: &Path) -> String {
    let mut cmd = Command::new(clang_windows());
    cmd.args(CLANG_WINDOWS_FLAGS)
        .arg("-isystem")
        .arg(msvc_include_dir())
        .args(["-S", "-emit-llvm", "-o"])
        .arg(out)
        .arg(src);
    check(cmd, "clang++ -S -emit-llvm --target=x86_64-pc-windows-msvc")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::read_to_string(out).expect("clang wrote the module")
}

fn ehir_ll(src: &Path, out: &Path) -> String {
    let mut cmd = Command::new(ehir());
    cmd.args(["--std=c++14", "emit-llvm", "--abi", "msvc"])
        .arg(src)
        .arg("-o")
        .arg(out);
    check(cmd, "ehir emit-llvm --abi msvc").unwrap_or_else(|e| panic!("{e}"));
    std::fs::read_to_string(out).expect("ehir wrote the module")
}

#[test]
fn vftables_and_rtti_objects_are_clang_for_windows_ones() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("rtti.cpp");
    std::fs::write(&src, PROGRAM).expect("writable");
    let clang = rtti_objects(&clang_windows_ll(&src, &dir.path().join("clang.ll")));
    let ours = rtti_objects(&ehir_ll(&src, &dir.path().join("ehir.ll")));
    // What the program must have: every kind of object, an ambiguous base (attributes
    // 66), a base at offset 8, a pure slot.
    for name in [
        "??_7In@ns@@6B@",
        "??_R4In@ns@@6B@",
        "??_R3Z@@8",
        "??_R2Z@@8",
        "??_R17?0A@EC@R@@8",
        "??_R1BA@?0A@EC@R@@8",
        "??_R17?0A@EA@P@@8",
        "??_R0?AVIn@ns@@@8",
        "??_R0PEAJ@8",
    ] {
        assert!(
            clang.contains_key(name),
            "Clang for Windows defines no {name}"
        );
    }
    assert!(clang["??_7A@@6B@"].contains(&"ptr @_purecall".to_string()));
    let mismatches: Vec<String> = clang
        .keys()
        .chain(ours.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|name| clang.get(*name) != ours.get(*name))
        .map(|name| {
            format!(
                "{name}\n  Clang: {:?}\n  ehir:  {:?}",
                clang.get(name),
                ours.get(name)
            )
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} of {} objects differ:\n{}",
        mismatches.len(),
        clang.len(),
        mismatches.join("\n")
    );
}

#[test]
fn virtual_calls_typeid_and_dynamic_cast_behave_as_clang_for_windows_under_wine() {
    require_msvc_tools();
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("rtti.cpp");
    std::fs::write(&src, PROGRAM).expect("writable");
    let want = clang_windows_outcome(&src).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        want.to_string().contains("bad_cast") && want.to_string().contains("B::operator delete"),
        "the oracle's run is not what the program prints: {want}"
    );
    for (i, (build, flags)) in MSVC_BUILDS.iter().enumerate() {
        let exe = dir.path().join(format!("ehir-{i}.exe"));
        let mut cmd = Command::new(ehir());
        cmd.args(["--std=c++14", "build", "--abi", "msvc"])
            .args(*flags)
            .arg(&src)
            .arg("-o")
            .arg(&exe);
        check(cmd, &format!("ehir build --abi msvc ({build})")).unwrap_or_else(|e| panic!("{e}"));
        let got = run_wine(&exe, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            got, want,
            "({build}) under wine differs from Clang for Windows"
        );
    }
}

/// Interpreted with the Microsoft target's RTTI and catch objects (no heap).
const STACK_PROGRAM: &str = r#"
#include <cstdio>
#include <typeinfo>
struct Shape {
  virtual ~Shape() { std::printf("~Shape\n"); }
  virtual int area() const = 0;
  virtual const char *name() const { return "shape"; }
};
struct Square : Shape {
  int side;
  explicit Square(int s) : side(s) {}
  ~Square() override { std::printf("~Square %d\n", side); }
  int area() const override { return side * side; }
  const char *name() const override { return "square"; }
};
struct Circle : Shape {
  int area() const override { return 3; }
};
struct Picky {
  int id;
  explicit Picky(int i) : id(i) {}
  Picky(const Picky &other) : id(other.id + 100) { std::printf("copy %d\n", other.id); }
  ~Picky() { std::printf("~Picky %d\n", id); }
};
static int describe(const Shape &s) {
  std::printf("%s %d square:%d\n", s.name(), s.area(), typeid(s) == typeid(Square));
  return s.area();
}
int main() {
  Square square(4);
  Circle circle;
  int total = describe(square) + describe(circle);
  Shape *shape = &circle;
  std::printf("as square: %d, as circle: %d\n", dynamic_cast<Square *>(shape) != nullptr,
              dynamic_cast<Circle *>(shape) != nullptr);
  try {
    Square &s = dynamic_cast<Square &>(*shape);
    std::printf("not reached %d\n", s.side);
  } catch (std::bad_cast &) {
    std::printf("bad_cast\n");
  }
  try {
    throw Picky(7);
  } catch (Picky p) {
    std::printf("caught %d\n", p.id);
  }
  return total;
}
"#;

#[test]
fn a_microsoft_target_module_interpreted_at_every_phase_behaves_as_clang_for_windows() {
    require_msvc_tools();
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("stack.cpp");
    std::fs::write(&src, STACK_PROGRAM).expect("writable");
    let want = clang_windows_outcome(&src).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        want.stdout.contains("copy 7") && want.stdout.contains("bad_cast"),
        "the oracle's run is not what the program prints: {want}"
    );
    let options = ehir_clang::Options {
        abi: ehir_core::abi::EhAbi::Msvc,
        clang: ehir_clang::ClangOptions {
            msvc_include_dir: Some(msvc_include_dir()),
            ..Default::default()
        },
    };
    let module = ehir_clang::compile_file(&src, STACK_PROGRAM, &options)
        .unwrap_or_else(|ds| panic!("{:?}", ds.0));
    for phase in [
        ehir_core::Phase::Structured,
        ehir_core::Phase::Flat,
        ehir_core::Phase::Msvc,
    ] {
        let mut lowered = module.clone();
        ehir_pipeline::lower(&mut lowered, phase).unwrap_or_else(|e| panic!("{e}"));
        let outcome = ehir_interp::run_module(&lowered, &ehir_interp::RunConfig::default())
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(
            outcome.runtime_error.is_none(),
            "{phase:?}: {:?}",
            outcome.runtime_error
        );
        let got = Outcome {
            stdout: String::from_utf8_lossy(&outcome.stdout).into_owned(),
            status: outcome.exit_status,
        };
        assert_eq!(got, want, "interpreted at the {phase:?} phase");
    }
}

#[test]
fn the_field_reader_reads_image_relative_references_numbers_and_names() {
    let line = r#"@"??_R4C@@6B@" = linkonce_odr constant %rtti.CompleteObjectLocator { i32 1, i32 -1, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"??_R0?AVC@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), ptr @"??_EC@@UEAAPEAXI@Z", [8 x i8] c".?AVC@@\00", ptr null }, comdat"#;
    let objects = rtti_objects(line);
    assert_eq!(
        objects["??_R4C@@6B@"],
        [
            "i32 1",
            "i32 -1",
            "rel(@??_R0?AVC@@@8)",
            "ptr @??_GC@@UEAAPEAXI@Z",
            "c\".?AVC@@\\00\"",
            "ptr null"
        ]
    );
}
