//! Class layout equals Clang's: the layouts ehir-clang computes from the AST (size,
//! alignment, offsets of bases, virtual bases and members, and on Itanium the data size
//! and the size and alignment as a base) against what
//! `clang -Xclang -fdump-record-layouts-complete` prints for x86-64 Linux (Itanium) and
//! for x86-64 Windows (Microsoft layout, LLP64), for classes with empty bases, padding,
//! multiple and nested bases, tail padding of POD and non-POD bases, arrays and class
//! members; on Itanium also dynamic classes, primary bases and virtual bases (a nearly
//! empty one as the primary base, an empty one, a diamond), on Windows dynamic classes
//! with several bases with a vftable pointer and classes with virtual bases (vbtable
//! pointers, own and shared; vftables in virtual bases and vtordisps). Needs `clang++-22` (or
//! `$EHIR_CLANG`).

use ehir_core::abi::EhAbi;
use std::collections::BTreeMap;
use std::process::Command;

const SOURCE: &str = "
struct Empty {};
struct A { char c; double d; int i; };
struct B : Empty { int x; };
struct C { int a; char b; };
struct D : C { char e; };
struct E : A, B { short s; char arr[3]; };
struct F { C c; char tail; };
struct G { G(); ~G(); long a; char b; };
struct H : G { G g; char c; };
struct I : Empty { Empty e; int x; };
namespace ns { struct J { bool b; void *p; float f; B base; }; }
struct K : ns::J, D { unsigned short u[5]; };
struct Empty2 {};
struct L : C, Empty { int y; };
struct M : Empty, Empty2 { int y; };
struct N : Empty { Empty e; Empty f; int x; };
struct O : Empty, C { char z; };
struct P : C, Empty {};
";

/// Dynamic classes and virtual bases (Itanium).
const DYNAMIC_SOURCE: &str = "
struct Empty {};
struct NE { virtual ~NE(); };
struct V { int v; virtual void f(); };
struct VA : virtual V { int a; };
struct VB : virtual NE { char b; };
struct VC : VA, VB { int c; virtual void g(); };
struct T { virtual ~T(); int m; char t; };
struct U : T { char u; };
struct W : virtual Empty, T { char w; };
struct X : VA, virtual V { short x; };
struct Y : Empty, VB, virtual VA { long y; };
struct Z : U, X, Y {};
";

/// Dynamic classes on the Microsoft target: the bases with a vftable pointer are placed
/// first, the first of them sharing its pointer with the class; a dynamic class without
/// such a base has its own pointer at offset 0.
const MSVC_DYNAMIC_SOURCE: &str = "
struct Empty {};
struct E { int e; };
struct X { virtual void x(); int a; };
struct Y { virtual ~Y(); char b; };
struct D : E, X { int d; virtual void g(); };
struct F : E { virtual void f(); char c; };
struct G : E, X, Y { short g; };
struct H : F, G { int h; };
struct I : Empty, Y { virtual void i(); };
";

/// Clang's layout of one record: sizeof, align, (offset, name) of its direct bases,
/// virtual bases, members and Microsoft vbtable pointer (`vbptr`), and on Itanium (dsize, nvsize, nvalign).
#[derive(Debug, PartialEq)]
struct Dumped {
    size: u64,
    align: u64,
    subobjects: Vec<(u64, String)>,
    sizes_as_base: Option<(u64, u64, u64)>,
}

fn parse_dump(text: &str) -> BTreeMap<String, Dumped> {
    let mut records = BTreeMap::new();
    for block in text.split("*** Dumping AST Record Layout").skip(1) {
        let mut lines = block.lines().filter(|l| l.contains('|'));
        let Some(header) = lines.next() else { continue };
        let name = header.split('|').nth(1).unwrap().trim();
        let name = name
            .trim_start_matches("struct ")
            .trim_start_matches("class ")
            .trim_end_matches(" (empty)")
            .to_string();
        let mut dumped = Dumped {
            size: 0,
            align: 0,
            subobjects: Vec::new(),
            sizes_as_base: None,
        };
        let number = |fields: &[&str], key: &str| -> Option<u64> {
            fields.iter().find_map(|f| {
                f.trim()
                    .strip_prefix(key)
                    .map(|v| v.trim_end_matches([',', ']']).parse().unwrap())
            })
        };
        for line in lines {
            let (offset, rest) = line.split_once('|').unwrap();
            let text = rest.trim();
            if text.starts_with("[sizeof=") || text.starts_with("nvsize=") {
                let fields: Vec<&str> = text.trim_start_matches('[').split(", ").collect();
                // `[sizeof=S, dsize=D, align=A,` then ` nvsize=N, nvalign=M]` (Linux), or
                // `[sizeof=S, align=A,` (Windows).
                if let Some(size) = number(&fields, "sizeof=") {
                    dumped.size = size;
                    dumped.align = number(&fields, "align=").unwrap();
                    if let Some(dsize) = number(&fields, "dsize=") {
                        dumped.sizes_as_base = Some((dsize, 0, 0));
                    }
                }
                if let (Some(nvsize), Some(nvalign), Some((dsize, _, _))) = (
                    number(&fields, "nvsize="),
                    number(&fields, "nvalign="),
                    dumped.sizes_as_base,
                ) {
                    dumped.sizes_as_base = Some((dsize, nvsize, nvalign));
                }
                continue;
            }
            let depth = rest.len() - rest.trim_start().len();
            if depth != 3
                || offset.trim().is_empty()
                || (text.ends_with("vtable pointer)") || text.ends_with("vftable pointer)"))
            {
                continue;
            }
            let entry = text.trim_end_matches(" (empty)");
            let entry_name = if text.ends_with("vbtable pointer)") {
                "vbptr".to_string()
            } else if let Some(vbase) = text
                .strip_prefix("(vtordisp for vbase ")
                .and_then(|v| v.strip_suffix(')'))
            {
                format!("vtordisp {}", vbase.rsplit("::").next().unwrap())
            } else if let Some((class, kind)) = entry.split_once(" (")
                && kind.ends_with("base)")
            {
                let class = class
                    .trim_start_matches("struct ")
                    .trim_start_matches("class ")
                    .rsplit("::")
                    .next()
                    .unwrap();
                if kind.contains("virtual") {
                    format!("virtual {class}")
                } else {
                    class.to_string()
                }
            } else {
                entry
                    .trim_end_matches(" (empty)")
                    .rsplit(' ')
                    .next()
                    .unwrap()
                    .to_string()
            };
            dumped
                .subobjects
                .push((offset.trim().parse().unwrap(), entry_name));
        }
        records.insert(name, dumped);
    }
    records
}

fn clang() -> String {
    std::env::var("EHIR_CLANG").unwrap_or_else(|_| "clang++-22".into())
}

#[test]
fn computed_layouts_equal_clangs_record_layouts() {
    layouts_equal_clangs(EhAbi::Itanium, SOURCE, 18);
}

#[test]
fn computed_layouts_equal_clangs_record_layouts_on_windows() {
    layouts_equal_clangs(EhAbi::Msvc, SOURCE, 18);
}

#[test]
fn computed_layouts_of_dynamic_classes_equal_clangs_on_windows() {
    layouts_equal_clangs(EhAbi::Msvc, MSVC_DYNAMIC_SOURCE, 9);
}

#[test]
fn computed_layouts_of_dynamic_classes_and_virtual_bases_equal_clangs() {
    layouts_equal_clangs(EhAbi::Itanium, DYNAMIC_SOURCE, 12);
}

/// Virtual bases on the Microsoft target: a vbtable pointer of the class's own after
/// the non-virtual bases or shared with its first base
/// that has one; the virtual bases after the non-virtual part, in construction order.
const MSVC_VIRTUAL_BASES_SOURCE: &str = "
struct V { int v; };
struct W { char w; };
struct B { char c; };
struct VA : virtual V { int a; };
struct VB : B, virtual V { char d; };
struct VC : VA, virtual W { char e; };
struct VD : B, VA { int f; };
struct VG : virtual VA, virtual W { };
struct VI : virtual V {};
struct VJ : VI, VB, virtual W { long long j; };
struct VK : VD, virtual VI { char k; };
";

#[test]
fn computed_layouts_of_virtual_bases_equal_clangs_on_windows() {
    layouts_equal_clangs(EhAbi::Msvc, MSVC_VIRTUAL_BASES_SOURCE, 11);
}

/// Dynamic classes with virtual bases on the Microsoft target: a class whose only
/// vftable is its virtual base's has no vftable pointer of its own, one that adds virtual
/// functions has one at offset 0; a vtordisp (4 bytes before the virtual base) for each
/// virtual base that introduces (itself or in a non-virtual base) a function the class
/// overrides when it declares a constructor or destructor (a destructor or a pure
/// function does not count), or that has one in a base.
const MSVC_DYNAMIC_VIRTUAL_BASES_SOURCE: &str = "
struct L { virtual ~L(); virtual const char *name() const; int id; };
struct F : virtual L { F(); ~F(); const char *name() const; int fd; };
struct N : virtual L { N(int); ~N(); int port; };
struct T : F, N { T(); ~T(); const char *name() const; };
struct P : virtual L { const char *name() const; char p; };
struct O : virtual L { O(); virtual void own(); char o; };
struct Q { virtual void q(); long long x; };
struct R : Q { };
struct S : virtual R { S(); void q(); };
struct U : virtual L { U(); virtual const char *name() const = 0; };
struct Z : P, virtual O { Z(); short z; };
";

#[test]
fn computed_layouts_of_dynamic_virtual_bases_equal_clangs_on_windows() {
    layouts_equal_clangs(EhAbi::Msvc, MSVC_DYNAMIC_VIRTUAL_BASES_SOURCE, 11);
}

/// Checks every class of `text` (`classes` of them) on the target of `abi`.
fn layouts_equal_clangs(abi: EhAbi, text: &str, classes: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("layouts.cpp");
    std::fs::write(&source, text).expect("writable");
    let target = format!("--target={}", ehir_clang::clang::target_triple(abi));
    let args = ["-fsyntax-only", target.as_str(), "-Xclang"];
    let dump = Command::new(clang())
        .args(args)
        .arg("-fdump-record-layouts-complete")
        .arg(&source)
        .output()
        .expect("clang runs (install clang-22 or set EHIR_CLANG)");
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let expected = parse_dump(&String::from_utf8_lossy(&dump.stdout));
    let json = Command::new(clang())
        .args(args)
        .arg("-ast-dump=json")
        .arg(&source)
        .output()
        .expect("clang runs");
    assert!(json.status.success());
    let main_file = source.display().to_string();
    let layouts =
        ehir_clang::class_layouts(&String::from_utf8_lossy(&json.stdout), &main_file, abi)
            .unwrap_or_else(|ds| panic!("{:?}", ds.0));
    assert_eq!(
        layouts.len(),
        classes,
        "{:?}",
        layouts.keys().collect::<Vec<_>>()
    );
    for (name, layout) in &layouts {
        let layout = match layout {
            Err(e) => panic!("no layout of '{name}': {}", e.message),
            Ok(layout) => layout,
        };
        let Some(dumped) = expected.get(name) else {
            panic!("Clang dumped no layout of '{name}'");
        };
        // Clang shows a vbtable pointer shared with a base inside that base only.
        let shares_vbptr = layout
            .bases
            .iter()
            .any(|base| matches!(layouts.get(&base.name), Some(Ok(b)) if b.vbptr_offset.is_some()));
        let own_vbptr = layout.vbptr_offset.filter(|_| !shares_vbptr);
        let mut subobjects: Vec<(u64, String)> = layout
            .bases
            .iter()
            .map(|b| (b.offset, b.name.rsplit("::").next().unwrap().to_string()))
            .chain(layout.fields.iter().map(|f| (f.offset, f.name.clone())))
            .chain(own_vbptr.map(|offset| (offset, "vbptr".to_string())))
            .chain(
                layout
                    .virtual_bases
                    .iter()
                    .map(|v| (v.offset, format!("virtual {}", v.name))),
            )
            .chain(layout.vtordisp_bases.iter().map(|v| {
                let offset = layout.virtual_base_offset(v).unwrap() - 4;
                (
                    offset,
                    format!("vtordisp {}", v.rsplit("::").next().unwrap()),
                )
            }))
            .collect();
        subobjects.sort();
        let mut clang_subobjects = dumped.subobjects.clone();
        clang_subobjects.sort();
        let computed = Dumped {
            size: layout.size,
            align: layout.align,
            subobjects,
            sizes_as_base: dumped
                .sizes_as_base
                .map(|_| (layout.dsize, layout.nv_size, layout.nv_align)),
        };
        let dumped = Dumped {
            subobjects: clang_subobjects,
            ..*dumped
        };
        assert_eq!(computed, dumped, "layout of '{name}'");
    }
}
