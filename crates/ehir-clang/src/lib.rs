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
//! `try`/`catch`, function-try-blocks, `noexcept` and dynamic exception specifications
//! (`throw()` is `noexcept` from C++17 on: [`Standard`], from `--std`, else Clang's default
//! C++17; the Microsoft target ignores the others, as Clang's CodeGen does),
//! instantiations of function and class templates, lambdas, placement and `nothrow`
//! `new`, virtual functions with single inheritance on both ABIs (Itanium: `cirgen::vtable`:
//! a vtable per dynamic class as an internal CIR global — offset to top, typeinfo,
//! function pointers, pure ones null —, the vptr stored by constructors and destructors,
//! virtual calls through it, deleting destructors `D0`, also for `std::exception` and
//! the other classes of the C++ runtime's headers), `typeid` and `dynamic_cast` (through
//! the runtime's `__dynamic_cast`); Microsoft: `cirgen::vtable_msvc`, vftables with the
//! class's Complete Object Locator and RTTI objects as Clang for Windows makes them,
//! scalar deleting destructors `??_G`, `__RTtypeid` and `__RTDynamicCast`;
//! `cirgen::vbtable_msvc`: virtual bases of classes without virtual functions or
//! destructors — vbtables, constructors with the "most derived" flag, CatchableTypes
//! with the vbtable displacement).
//!
//! # Not yet
//! On the Microsoft target: virtual bases in a class with virtual functions or a
//! destructor (vftables of virtual bases, vtordisps, `??_D`), an empty virtual base,
//! pointers to members. On both: bit fields, static
//! references and arrays of classes with dynamic initialization, thread-safe static
//! initialization (`_Init_thread_*`; wine's msvcrt has none). Typeinfo of a class
//! template specialization (its Itanium mangling with template arguments), so throwing
//! or catching one. libstdc++'s `std::string` (its `_Alloc_hider` constructor is named
//! through a typedef'd parameter type; members of an anonymous union in a base
//! subobject). Variable-length arrays beyond simple bounds (`vla.rs`), and their
//! storage lives until the function returns.
//! The vtables of the C++ runtime's classes are copied into the module rather than
//! referenced. Microsoft RTTI lists public bases only (a private base is left out of the
//! class hierarchy descriptor).
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
//! Microsoft-ABI behaviour: the callee destroys by-value class parameters; a named
//! by-value class catch parameter is built by the runtime (`cir.copy_catch_param`: the
//! catchpad's object slot, before the try block's objects are destroyed; a throw
//! generates the copy constructors its CatchableTypes name); an unnamed
//! by-value catch parameter is not copied; `catch (T*&)` binds to the exception object
//! (the handler yields the pointer's address, which the MSVC lowering turns into the
//! reference adjective); `throw nullptr` is caught by `void*` handlers (its throw info
//! lists `$$T` and `void*`). A static local with a dynamic initializer is guarded as
//! Clang for Windows does with `-fno-threadsafe-statics` (msvcrt.dll has no
//! `_Init_thread_header`): bit 1 of an internal 32-bit guard of ehir's own
//! (`ehir.guard.SYMBOL`), cleared again if the initializer throws; its destructor is
//! registered with `atexit` through a `??__F…` function, as for globals.
//!
//! Names, decided so that `ehir build --abi msvc` links against msvcrt.dll and runs:
//! - **functions and globals** keep the name Clang gives for the target, the Microsoft
//!   decoration (`?f@@YAXH@Z`, constructors `??0A@@QEAA@XZ`, `??2@YAPEAX_K@Z` for
//!   `operator new`), except destructors, which the AST names by the "vbase destructor"
//!   `??_DA@@QEAAXXZ` and Clang's code by `??1A@@QEAA@XZ` (`UEAA` when virtual; `??_D`
//!   is kept for a class with virtual bases, as Clang does;
//!   `cirgen::State::function_symbol`): they are the names msvcrt.dll exports and
//!   ehir's startup object defines, and the names another MSVC-built object would use;
//! - **types thrown and caught** are named as on every other path of the structured IR,
//!   by Itanium typeinfo symbols (`_ZTIi`, `_ZTI1A`, computed from the AST), and the
//!   MSVC lowering and emitter turn them into TypeDescriptors and ThrowInfo
//!   (`??_R0H@8`, `_TI1H`; `ehir_core::abi::type_names`), as for hand-written CIR.
//!   `size_t` and `ptrdiff_t` are `unsigned long long` and `long
//!   long` there, so a thrown `size_t` has the type code `_K`, as with Clang for Windows.
//!
//! # Conventions
//! Records are named by the C++ type's name as Clang prints it, except that the source
//! location Clang writes into the name of an entity without one keeps only the file's
//! name (`(lambda at f.cpp:3:12)`, never the directory Clang was given: output is the
//! same wherever the input is; `cirgen::State::output_name`). For the same reason the
//! Microsoft name of the anonymous namespace (`?A0x…@`, which Clang derives from the
//! main file's path as given) is made from the file's name alone; entities in an
//! anonymous namespace are internal.
//! The module records its target as the `cir.triple` attribute (so the interpreter
//! treats its undefined functions as the library's, never as probes). Inline functions
//! (declared `inline` or `constexpr`, defined in their class, template instantiations,
//! implicit special members) are `linkonce_odr`, `static` ones internal; a definition
//! that cannot throw (`noexcept`, `throw()`) is `nothrow`, Clang's `nounwind`. Globals
//! are internal when `static` outside a class or `const` at namespace scope (not
//! `extern`); scalar initializers Clang's constant evaluator folds are folded
//! (`cirgen::constant`), others are dynamic initializers. Constructors and destructors are emitted and called under the mangled name Clang
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

pub use clang::{CLANG_PACKAGE, CLANG_VARIABLE, ClangError, ClangOptions, Standard};
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
    compile_json(&json, &path.display().to_string(), options)
}

/// Generates a module from Clang's JSON AST of the file `main_file`, made by Clang for
/// `options` (the ABI, and the standard of [`ClangOptions::standard`]).
pub fn compile_json(json: &str, main_file: &str, options: &Options) -> Result<Module, Diagnostics> {
    let abi = options.abi;
    stacker::grow(COMPILE_STACK, || {
        let root = ast::read_translation_unit(json, main_file)
            .map_err(|e| Diagnostics(vec![Diagnostic::error(Loc::NONE, e.to_string())]))?;
        let mut module =
            cirgen::generate(&root, abi, options.clang.standard()).map_err(Diagnostics)?;
        // The target the program was compiled for, as upstream CIRGen records it: the
        // module is a program whose undefined functions exist elsewhere (the
        // interpreter runs none it does not model), for this ABI.
        module.attributes.push(ehir_core::ModuleAttribute {
            name: "cir.triple".to_string(),
            value: format!("\"{}\"", clang::target_triple(abi)),
        });
        Ok(module)
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
