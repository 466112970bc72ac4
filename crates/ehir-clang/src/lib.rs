//! ehir-clang: the C++ front end that runs Clang. Clang parses, preprocesses, resolves
//! names and overloads, instantiates templates and mangles names; ehir reads its JSON
//! AST ([`ast`]) and generates structured CIR from it ([`cirgen`]) through the
//! EHScopeStack builder of `ehir-builder`, the way Clang's own CodeGen does.
//!
//! * [`clang`]: finding Clang (`EHIR_CLANG`, then `clang++-22`, `clang++`), its command
//!   line for an EH ABI, its diagnostics as ehir's.
//! * [`ast`]: the typed AST (serde), locations, the declaration index.
//! * [`types`]: C++ types as Clang prints them.
//! * [`cirgen`]: the CIR generator, split by story.
//!
//! Entry points: [`compile_file`] (run Clang on a file) and [`compile_json`] (an AST
//! dump already made). What the generator does not support is reported as
//! `unsupported: <Clang node kind or feature>` at its location; nothing panics.
//!
//! # What is generated
//! Functions (the main file's non-inline definitions, then what they use), scalar and
//! pointer arithmetic, every statement, calls (direct, through pointers, C library
//! functions as external declarations), globals with constant initializers and string
//! literals, classes (Itanium layout computed from the AST, checked against Clang's
//! `-fdump-record-layouts`) with constructors, destructors, implicit special members,
//! bases, arrays, `new`/`delete` (array cookies), temporaries (`CXXBindTemporaryExpr`,
//! `MaterializeTemporaryExpr` with lifetime extension, elided copies, NRVO), `throw`,
//! `try`/`catch`, function-try-blocks, `noexcept` and dynamic exception specifications,
//! instantiations of function and class templates, lambdas, placement and `nothrow`
//! `new`, virtual functions on the Itanium ABI with single inheritance (`cirgen::vtable`:
//! a vtable per dynamic class as an internal CIR global — offset to top, typeinfo,
//! function pointers, pure ones null —, the vptr stored by constructors and destructors,
//! virtual calls through it, deleting destructors `D0`, also for `std::exception` and
//! the other classes of the C++ runtime's headers), `typeid` and `dynamic_cast` (through
//! the runtime's `__dynamic_cast`).
//!
//! # Not yet
//! Virtual functions on the Microsoft ABI, dynamic classes with a dynamic base that is
//! not the first (secondary vtables, thunks), virtual bases, pointers to members,
//! unions, bit fields, dynamic initialization of globals and static locals, members
//! placed in a base's tail padding. The vtables of the C++ runtime's classes are copied
//! into the module rather than referenced. On the Microsoft target: the runtime-built
//! by-value catch object (a named by-value parameter is still copied in the handler, so
//! a throwing copy constructor terminates where wine's runtime lets a sibling handler
//! catch; an unnamed one is not copied, as on Windows).
//!
//! # The Microsoft target (`--abi msvc`)
//! Clang parses for `x86_64-pc-windows-msvc` with `-fms-extensions
//! -fno-threadsafe-statics -nostdinc -isystem DIR`, DIR holding ehir's own Windows headers
//! ([`headers`]: embedded in the binary, written to a private temporary directory once
//! per run and removed at its end). A program that includes a header they lack gets a
//! diagnostic naming the headers there are. Types follow the target's data model (LLP64:
//! `long` is 32 bits, [`ehir_core::abi::EhAbi::long_bits`]; `size_t` is `unsigned long
//! long`).
//!
//! Microsoft-ABI behaviour: the callee destroys by-value class parameters; an unnamed
//! by-value catch parameter is not copied; `catch (T*&)` binds to the exception object
//! (the handler yields the pointer's address, which the MSVC lowering turns into the
//! reference adjective); `throw nullptr` is caught by `void*` handlers (its throw info
//! lists `$$T` and `void*`).
//!
//! Names, decided so that `ehir build --abi msvc` links against msvcrt.dll and runs:
//! - **functions and globals** keep the name Clang gives for the target, the Microsoft
//!   decoration (`?f@@YAXH@Z`, constructors `??0A@@QEAA@XZ`, destructors `??1A@@QEAA@XZ`,
//!   `??2@YAPEAX_K@Z` for `operator new`): they are the names msvcrt.dll exports and
//!   ehir's startup object defines, and the names another MSVC-built object would use;
//! - **types thrown and caught** are named as on every other path of the structured IR,
//!   by Itanium typeinfo symbols (`_ZTIi`, `_ZTI1A`, computed from the AST), and the
//!   MSVC lowering and emitter turn them into TypeDescriptors and ThrowInfo
//!   (`??_R0H@8`, `_TI1H`; `ehir_core::abi::type_names`), exactly as for the builtin
//!   front end's output. `size_t` and `ptrdiff_t` are `unsigned long long` and `long
//!   long` there, so a thrown `size_t` has the type code `_K`, as with Clang for Windows.
//!
//! # Conventions shared with the builtin front end
//! Constructors and destructors are emitted and called under the mangled name Clang
//! gives (the complete-object variant, `C1`/`D1`), also for base subobjects (no virtual
//! bases yet). Call arguments are evaluated right to left, as g++ does. Class arguments
//! are passed by the address of a temporary the caller builds; on Itanium the caller
//! destroys it at the end of the full expression, on the Microsoft ABI the callee
//! destroys its by-value parameters (left to right, when it returns or unwinds) and the
//! caller only if an exception leaves before the call.

#![warn(missing_docs)]

pub mod ast;
pub mod cirgen;
pub mod clang;
pub mod headers;
pub mod types;

pub use clang::{CLANG_PACKAGE, CLANG_VARIABLE, ClangError, ClangOptions};
use ehir_core::abi::EhAbi;
use ehir_core::{Diagnostic, Diagnostics, Loc, Module};
use std::path::Path;

/// What to compile for.
#[derive(Clone, Debug)]
pub struct Options {
    /// The EH ABI (and so the target Clang parses for).
    pub abi: EhAbi,
    /// How to run Clang.
    pub clang: ClangOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            abi: EhAbi::Itanium,
            clang: ClangOptions::default(),
        }
    }
}

/// The stack everything runs on (reserved, committed only as used); deeper recursion
/// grows it further with `stacker`.
const COMPILE_STACK: usize = 64 * 1024 * 1024;

/// Runs Clang on the C++ file `path` (whose text is `text`, for locations) and
/// generates a structured-phase CIR module.
pub fn compile_file(path: &Path, text: &str, options: &Options) -> Result<Module, Diagnostics> {
    let json = clang::dump_ast(path, text, options.abi, &options.clang).map_err(|e| match e {
        ClangError::Rejected(diagnostics) => Diagnostics(diagnostics),
        other => Diagnostics(vec![Diagnostic::error(Loc::NONE, other.to_string())]),
    })?;
    let dialect = cirgen::Dialect::of_standard(options.clang.std.as_deref());
    compile_json_in(&json, &path.display().to_string(), options.abi, dialect)
}

/// Generates a module from Clang's JSON AST of the file `main_file` (in Clang's default
/// dialect, C++17).
pub fn compile_json(json: &str, main_file: &str, abi: EhAbi) -> Result<Module, Diagnostics> {
    compile_json_in(json, main_file, abi, cirgen::Dialect::default())
}

fn compile_json_in(
    json: &str,
    main_file: &str,
    abi: EhAbi,
    dialect: cirgen::Dialect,
) -> Result<Module, Diagnostics> {
    stacker::grow(COMPILE_STACK, || {
        let root = ast::read_translation_unit(json, main_file)
            .map_err(|e| Diagnostics(vec![Diagnostic::error(Loc::NONE, e.to_string())]))?;
        cirgen::generate_in(&root, abi, dialect).map_err(Diagnostics)
    })
}

/// The Itanium layouts of the classes defined in `main_file`, from Clang's JSON AST of
/// it (or, per class, why it has none).
pub fn class_layouts(
    json: &str,
    main_file: &str,
    abi: EhAbi,
) -> Result<
    std::collections::BTreeMap<String, Result<cirgen::class::ClassLayout, Diagnostic>>,
    Diagnostics,
> {
    stacker::grow(COMPILE_STACK, || {
        let root = ast::read_translation_unit(json, main_file)
            .map_err(|e| Diagnostics(vec![Diagnostic::error(Loc::NONE, e.to_string())]))?;
        Ok(cirgen::class_layouts(&root, abi))
    })
}
