//! The Microsoft-ABI build: LLVM IR for `x86_64-pc-windows-msvc` compiled by `llc` into
//! COFF objects and linked by `lld-link` into a PE console executable whose C and C++
//! runtime is msvcrt.dll (wine's, or Windows' own), with no other library.
//!
//! The link brings:
//! - import libraries made by `llvm-dlltool` from `.def` lists of the DLL functions ehir's
//!   code and the C subset of the front end may call ([`IMPORTS`]): msvcrt.dll (C library,
//!   `_CxxThrowException`, `__CxxFrameHandler3`, `std::terminate`, operator new/delete),
//!   kernel32.dll (`SetUnhandledExceptionFilter`), ntdll.dll (`__chkstk`, for frames larger
//!   than a page);
//! - a startup object ([`startup_ll`], entry [`ENTRY`]) in place of the C runtime's
//!   `mainCRTStartup`: it installs the unhandled-exception filter the Microsoft CRT
//!   installs (a C++ exception that no handler catches calls `std::terminate` during the
//!   search, before anything unwinds), calls `main(argc, argv, envp)` and passes its
//!   result to `exit`, which flushes `stdout` as returning from `main` must. Before `main`
//!   it runs the C++ dynamic initializers (`_initterm` over the `.CRT$XCA`..`.CRT$XCZ`
//!   section range, where compilers for this target put them);
//! - in the same object, weak definitions of what a Microsoft link takes from the static
//!   CRT and vcruntime and msvcrt.dll does not export ([`support_symbols`]): the
//!   `type_info` vftable, `_fltused`, `__std_terminate`, the sized and nothrow forms of
//!   `operator new`/`delete` and `std::nothrow`. Weak, so a program's own definition wins.

use crate::emit::MSVC_TRIPLE;
use crate::toolchain::{LlvmTools, ToolError, run};
use ehir_core::abi::{MSVC_PERSONALITY, runtime};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The entry point of executables built for the Microsoft ABI.
pub const ENTRY: &str = "ehir_msvc_start";

/// The DLLs linked against and the functions imported from each (all exported by wine 8's
/// DLLs and by Windows').
pub const IMPORTS: &[(&str, &[&str])] = &[
    (
        "msvcrt",
        &[
            // C library
            "printf",
            "puts",
            "putchar",
            "fputs",
            "fprintf",
            "sprintf",
            "_snprintf",
            "fflush",
            "setvbuf",
            "__iob_func",
            "exit",
            "_exit",
            "abort",
            "malloc",
            "calloc",
            "realloc",
            "free",
            "memcpy",
            "memmove",
            "memset",
            "memcmp",
            "strlen",
            "strcmp",
            "strncmp",
            "strcpy",
            "strncpy",
            "strcat",
            "strchr",
            "strrchr",
            "strstr",
            "_strdup",
            "atoi",
            "atol",
            "atof",
            "getenv",
            "rand",
            "srand",
            "abs",
            "labs",
            "sqrt",
            "pow",
            "fabs",
            "floor",
            "ceil",
            "__getmainargs",
            "_initterm",
            "atexit",
            "_assert",
            // C++ runtime
            runtime::MSVC_THROW,
            MSVC_PERSONALITY,
            runtime::MSVC_UNCAUGHT_EXCEPTION,
            runtime::MSVC_TERMINATE,
            "?unexpected@@YAXXZ",
            "?set_terminate@@YAP6AXXZP6AXXZ@Z",
            "?set_unexpected@@YAP6AXXZP6AXXZ@Z",
            "??2@YAPEAX_K@Z",
            "??3@YAXPEAX@Z",
            "??_U@YAPEAX_K@Z",
            "??_V@YAXPEAX@Z",
            runtime::MSVC_PURECALL,
            runtime::MSVC_RTDYNAMIC_CAST,
            runtime::MSVC_RTTYPEID,
            runtime::MSVC_RTCAST_TO_VOID,
            "??1type_info@@UEAA@XZ",
            "?name@type_info@@QEBAPEBDXZ",
        ],
    ),
    ("kernel32", &["SetUnhandledExceptionFilter"]),
    ("ntdll", &["__chkstk"]),
];

/// The `.def` text of one DLL's imports.
pub fn def_file(dll: &str, functions: &[&str]) -> String {
    let mut text = format!("LIBRARY {dll}.dll\nEXPORTS\n");
    for f in functions {
        text.push_str(f);
        text.push('\n');
    }
    text
}

/// The startup module (LLVM IR): entry [`ENTRY`] and the unhandled-exception filter.
pub fn startup_ll() -> String {
    let operator_forwarders = operator_forwarders();
    format!(
        r#"; ehir's startup for Microsoft-ABI executables (in place of mainCRTStartup).
target triple = "{MSVC_TRIPLE}"

declare i32 @main(i32, ptr, ptr)
declare void @exit(i32) noreturn
declare i32 @__getmainargs(ptr, ptr, ptr, i32, ptr)
declare ptr @SetUnhandledExceptionFilter(ptr)
declare void @"?terminate@@YAXXZ"() noreturn nounwind
declare void @_initterm(ptr, ptr)
declare ptr @malloc(i64)
declare void @"??3@YAXPEAX@Z"(ptr)
declare void @"??_V@YAXPEAX@Z"(ptr)

; The bounds of the C++ dynamic initializers: the linker sorts the .CRT$XC* sections by
; name, so the pointers compilers put in .CRT$XCU lie between these two; _initterm skips
; the null ones (and the padding).
@ehir_initializers_begin = internal global ptr null, section ".CRT$XCA", align 8
@ehir_initializers_end = internal global ptr null, section ".CRT$XCZ", align 8
@llvm.used = appending global [2 x ptr] [ptr @ehir_initializers_begin, ptr @ehir_initializers_end], section "llvm.metadata"

; What a Microsoft link takes from the static CRT and vcruntime; weak, so that a
; program's own definition wins. The type_info vftable is never called through: catch
; matching compares the decorated names of the type descriptors that point at it.
@"??_7type_info@@6B@" = weak global [2 x ptr] zeroinitializer, align 8
@_fltused = weak global i32 0, align 4
@"?nothrow@std@@3Unothrow_t@1@B" = weak constant [1 x i8] zeroinitializer, align 1

define weak void @__std_terminate() noreturn nounwind {{
entry:
  call void @"?terminate@@YAXXZ"()
  unreachable
}}

{operator_forwarders}
; As the Microsoft CRT's filter: a C++ exception (code 0xE06D7363 'msc') that reaches the
; top of the stack uncaught calls std::terminate before any frame unwinds.
define internal i32 @ehir_unhandled_exception_filter(ptr %pointers) {{
entry:
  %record = load ptr, ptr %pointers
  %code = load i32, ptr %record
  %is_cxx = icmp eq i32 %code, -529697949
  br i1 %is_cxx, label %terminate, label %search
terminate:
  call void @"?terminate@@YAXXZ"()
  unreachable
search:
  ret i32 0
}}

define void @{ENTRY}() {{
entry:
  %argc = alloca i32
  %argv = alloca ptr
  %envp = alloca ptr
  %startinfo = alloca i32
  store i32 0, ptr %startinfo
  %previous = call ptr @SetUnhandledExceptionFilter(ptr @ehir_unhandled_exception_filter)
  call void @_initterm(ptr @ehir_initializers_begin, ptr @ehir_initializers_end)
  %args = call i32 @__getmainargs(ptr %argc, ptr %argv, ptr %envp, i32 0, ptr %startinfo)
  %c = load i32, ptr %argc
  %v = load ptr, ptr %argv
  %e = load ptr, ptr %envp
  %status = call i32 @main(i32 %c, ptr %v, ptr %e)
  call void @exit(i32 %status)
  unreachable
}}
"#
    )
}

/// The sized forms of `operator delete` and `delete[]` (msvcrt.dll exports only the
/// unsized ones), each with the unsized one it calls.
const SIZED_DELETES: [(&str, &str); 2] = [
    (runtime::MSVC_SIZED_DELETE, "??3@YAXPEAX@Z"),
    ("??_V@YAXPEAX_K@Z", "??_V@YAXPEAX@Z"),
];

/// The nothrow forms of `operator new` and `new[]`, which call `malloc`.
const NOTHROW_NEWS: [&str; 2] = [
    "??2@YAPEAX_KAEBUnothrow_t@std@@@Z",
    "??_U@YAPEAX_KAEBUnothrow_t@std@@@Z",
];

/// The nothrow forms of `operator delete` and `delete[]`, each with the unsized one it
/// calls.
const NOTHROW_DELETES: [(&str, &str); 2] = [
    ("??3@YAXPEAXAEBUnothrow_t@std@@@Z", "??3@YAXPEAX@Z"),
    ("??_V@YAXPEAXAEBUnothrow_t@std@@@Z", "??_V@YAXPEAX@Z"),
];

/// The weak definitions of the operator forms msvcrt.dll does not export
/// ([`SIZED_DELETES`], [`NOTHROW_NEWS`], [`NOTHROW_DELETES`]), separated by blank lines.
fn operator_forwarders() -> String {
    let delete = |name: &str, ignored: &str, unsized_delete: &str| {
        format!(
            "define weak void @\"{name}\"(ptr %block, {ignored}) nounwind {{\n\
             entry:\n  call void @\"{unsized_delete}\"(ptr %block)\n  ret void\n}}\n"
        )
    };
    let new = |name: &str| {
        format!(
            "define weak ptr @\"{name}\"(i64 %size, ptr %tag) nounwind {{\n\
             entry:\n  %block = call ptr @malloc(i64 %size)\n  ret ptr %block\n}}\n"
        )
    };
    let sized: Vec<String> = SIZED_DELETES
        .iter()
        .map(|(name, unsized_delete)| delete(name, "i64 %size", unsized_delete))
        .collect();
    let nothrow: Vec<String> = NOTHROW_NEWS
        .iter()
        .map(|name| new(name))
        .chain(
            NOTHROW_DELETES
                .iter()
                .map(|(name, unsized_delete)| delete(name, "ptr %tag", unsized_delete)),
        )
        .collect();
    format!(
        "; The sized forms of operator delete forward to the unsized ones.\n{}\n\
         ; The nothrow forms: null instead of an exception when no memory is left.\n{}",
        sized.join("\n"),
        nothrow.join("\n")
    )
}

/// The symbols ehir's startup object defines (weakly) because msvcrt.dll does not export
/// them; the headers of the Clang front end (`crates/ehir-clang/include/msvc`) rely on
/// them.
pub fn support_symbols() -> impl Iterator<Item = &'static str> {
    ["??_7type_info@@6B@", "_fltused", "__std_terminate"]
        .into_iter()
        .chain(SIZED_DELETES.map(|(name, _)| name))
        .chain(NOTHROW_NEWS)
        .chain(NOTHROW_DELETES.map(|(name, _)| name))
        .chain(["?nothrow@std@@3Unothrow_t@1@B"])
}

/// How to turn LLVM IR into COFF objects and a PE executable.
#[derive(Clone, Debug, Default)]
pub struct MsvcToolchain {
    /// `llc`.
    pub llc: PathBuf,
    /// Present when the IR goes through `opt` before `llc`.
    pub opt: Option<PathBuf>,
    /// `llvm-dlltool`, which makes the import libraries of the DLLs of [`IMPORTS`].
    pub dlltool: PathBuf,
    /// `lld-link`.
    pub lld_link: PathBuf,
    /// `-O` level for `llc` (and `opt`): 0 to 3.
    pub opt_level: u8,
}

impl MsvcToolchain {
    /// `opt` (optionally) and `llc -mtriple=x86_64-pc-windows-msvc -filetype=obj`.
    pub fn compile(&self, ll: &Path, object: &Path, scratch: &Path) -> Result<(), ToolError> {
        let tools = LlvmTools {
            llc: &self.llc,
            opt: self.opt.as_deref(),
            opt_level: self.opt_level,
        };
        tools.compile(ll, object, scratch, &format!("-mtriple={MSVC_TRIPLE}"))
    }

    /// Links COFF objects with the startup object and the import libraries (both made in
    /// `scratch`) into a console executable.
    pub fn link(
        &self,
        objects: &[PathBuf],
        extra_args: &[OsString],
        exe: &Path,
        scratch: &Path,
    ) -> Result<(), ToolError> {
        let write = |path: &Path, text: &str| {
            std::fs::write(path, text).map_err(|error| ToolError::Spawn {
                command: format!("writing {}", path.display()),
                error,
            })
        };
        let mut libraries = Vec::new();
        for (dll, functions) in IMPORTS {
            let def = scratch.join(format!("{dll}.def"));
            write(&def, &def_file(dll, functions))?;
            let lib = scratch.join(format!("{dll}.lib"));
            run(Command::new(&self.dlltool)
                .args(["-m", "i386:x86-64", "-d"])
                .arg(&def)
                .arg("-l")
                .arg(&lib))?;
            libraries.push(lib);
        }
        let startup_source = scratch.join("ehir-msvc-startup.ll");
        write(&startup_source, &startup_ll())?;
        let startup = scratch.join("ehir-msvc-startup.obj");
        run(Command::new(&self.llc)
            .arg(format!("-mtriple={MSVC_TRIPLE}"))
            .arg("-filetype=obj")
            .arg(&startup_source)
            .arg("-o")
            .arg(&startup))?;
        let mut out = OsString::from("/out:");
        out.push(exe);
        run(Command::new(&self.lld_link)
            .args([
                "/nologo",
                &format!("/entry:{ENTRY}"),
                "/subsystem:console",
                "/nodefaultlib",
                "/machine:x64",
            ])
            .arg(out)
            .args(objects)
            .arg(&startup)
            .args(&libraries)
            .args(extra_args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn def_files_list_one_function_per_line() {
        assert_eq!(
            def_file("msvcrt", &["printf", "?terminate@@YAXXZ"]),
            "LIBRARY msvcrt.dll\nEXPORTS\nprintf\n?terminate@@YAXXZ\n"
        );
    }

    #[test]
    fn the_startup_object_defines_every_support_symbol_weakly() {
        let text = startup_ll();
        for symbol in support_symbols() {
            let quoted = format!("@\"{symbol}\"");
            let name = if symbol.starts_with('?') {
                quoted
            } else {
                format!("@{symbol}")
            };
            let defined = text.lines().any(|line| {
                line.starts_with(&format!("{name} = weak "))
                    || (line.starts_with("define weak ") && line.contains(&format!("{name}(")))
            });
            assert!(
                defined,
                "{symbol} is not defined weakly by the startup object"
            );
        }
        assert!(text.contains("call void @_initterm("));
        let imports: Vec<&str> = IMPORTS
            .iter()
            .flat_map(|(_, f)| f.iter().copied())
            .collect();
        assert!(imports.contains(&"_initterm"));
    }

    #[test]
    fn the_runtime_the_emitter_calls_is_imported() {
        let all: Vec<&str> = IMPORTS
            .iter()
            .flat_map(|(_, f)| f.iter().copied())
            .collect();
        for name in [
            runtime::MSVC_THROW,
            MSVC_PERSONALITY,
            runtime::MSVC_TERMINATE,
            runtime::MSVC_UNCAUGHT_EXCEPTION,
        ] {
            assert!(all.contains(&name), "{name}");
        }
        for &(itanium, ms) in runtime::MSVC_RUNTIME_NAMES {
            assert!(all.contains(&ms), "{itanium} -> {ms}");
        }
    }
}
