//! Exception tables that runtimes read, computed from lowered CIR: the Itanium LSDA
//! ([`lsda`]), the `__CxxFrameHandler3` state tables of Windows C++ EH ([`wineh`]) and CLR
//! EH clauses ([`clr`]); plus a reader of the tables `llc` writes for x64 Windows and of
//! the LSDAs it writes for x86-64 ELF ([`llc_asm`]), and structural comparisons of state
//! tables and LSDAs ([`structure`]).
//!
//! `ehir tables IN --abi msvc --compare-llc ASM` compares ehir's state tables with the ones
//! llc wrote into ASM for the LLVM IR of the same functions ([`structure::canonical`] of
//! both sides, so the order in which each side numbered sibling states does not matter),
//! printing `function @f: tables match` or both canonical forms, exit status 1 on a
//! mismatch.
//!
//! [`module_tables`] prints the tables of every function definition of a module that is
//! in the phase the ABI needs (`itanium` for [`TableFormat::Itanium`], `msvc` for
//! [`TableFormat::Msvc`] and [`TableFormat::Clr`]). `ehir tables IN --abi itanium|msvc|clr` lowers its input to that
//! phase and prints this text. Functions without EH tables print `function @f: no EH
//! tables`. Blocks and values are named as the printer names them in the lowered function
//! (`ehir opt -p ...` shows the same names).
//!
//! # `--abi msvc`
//! ```text
//! function @main: 10 states, 4 try blocks
//!   unwind map:
//!     state 0: to -1
//!     state 1: to 0, cleanup ^bb3
//!   try map:
//!     try 0 at ^bb4: states 0..1, catch high 5
//!       catch ??_R0H@8 adjectives 0 -> ^bb5
//!       catch ... adjectives 64 -> ^bb6
//!   call states:
//!     ^bb0 cir.try_call @thrower: state 1
//!     ^bb5 cir.call @printf: state 2
//!     ^bb7 cir.call @dtor: state none (cleanup funclet)
//! ```
//! `state N: to M[, cleanup ^bb]` is the UnwindMap (ToState, and the cleanuppad block whose
//! funclet is the action). `try K at ^bb` (the catchswitch block) gives TryLow..TryHigh and
//! CatchHigh; each handler line gives the TypeDescriptor (`...` for catch-all), the
//! adjectives (8: by reference, 64: catch-all), the catch object slot if any, and the
//! catchpad block. Call states list every may-throw call, try_call and throw with the
//! state the IP-to-state map gives it. See [`wineh`] for the numbering.
//!
//! # `--abi itanium`
//! ```text
//! function @f: 2 call sites, 2 actions, 1 types
//!   call sites:
//!     ^bb0 cir.try_call @g: landing pad ^bb2, action 3
//!     ^bb1 cir.call @h: no landing pad
//!   landing pads:
//!     ^bb2: type ids [0, 1], first action 3
//!   actions:
//!     1: cleanup, end
//!     3: catch type 1 (@_ZTIi), next -3 (-> 1)
//!   types:
//!     1: @_ZTIi
//! ```
//! Action offsets are 1-based byte offsets into the action table, as the call-site table
//! refers to them; `next` is the self-relative displacement stored in the record and the
//! offset it leads to. Type ids index the type table from 1 (`null` is a catch-all). A
//! `filters:` line lists the exception-specification list when there is one. See [`lsda`].
//! With `--bytes` ([`RenderOptions::bytes`]), ehir's encoding follows: the action table's
//! SLEB128 bytes record by record, the type table (4-byte indirect pcrel entries, last
//! type id first) and the ULEB128 filter list ([`lsda::render_bytes`]).
//!
//! `ehir tables IN --abi itanium --compare-llc ASM` compares each function's LSDA with the
//! `GCC_except_table` llc wrote into ASM (`llc -relocation-model=pic` on `ehir emit-llvm
//! --abi itanium` output), as [`structure::LsdaShape`]s: call-site entries (landing pads
//! numbered by first use, first actions), action records, type table and filter list.
//!
//! # `--abi clr`
//! ```text
//! function @main: 3 clauses, code [0, 20), handlers from 12
//!   layout: ^bb0[0, 3) ^bb1[3, 5) ... ^bb5[12, 15) ...
//!   clauses:
//!     fault: try [0, 3) handler [12, 15) at ^bb3
//!     catch ??_R0H@8: try [0, 5) handler [15, 20) at ^bb5
//!   rules: ok
//! ```
//! The layout puts the function's own code first and each funclet after it; offsets
//! count ops. A clause is `catch TYPE`, `catch ...` or `fault`, with its try and handler
//! ranges, the pad block, and `duplicate` for the extra runs of a split try range. The
//! last line is `rules: ok` or one `violation:` line per broken rule. See [`clr`].

pub mod clr;
pub mod llc_asm;
pub mod lsda;
pub mod structure;
pub mod wineh;

use ehir_core::abi::EhAbi;
use ehir_core::printer::Names;
use ehir_core::{Diagnostic, Function, Item, Module, ModuleCtx, Phase};

/// Which tables to build. Not an EH ABI of its own: the CLR clauses are a second table
/// format over the funclets of the Microsoft ABI ([`TableFormat::eh_abi`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TableFormat {
    /// The Itanium LSDA (needs Itanium-phase functions).
    Itanium,
    /// `__CxxFrameHandler3` state tables (needs MSVC-phase functions).
    Msvc,
    /// CLR EH clauses (needs MSVC-phase functions).
    Clr,
}

impl TableFormat {
    /// The EH ABI whose lowered functions the tables describe.
    pub fn eh_abi(self) -> EhAbi {
        match self {
            TableFormat::Itanium => EhAbi::Itanium,
            TableFormat::Msvc | TableFormat::Clr => EhAbi::Msvc,
        }
    }

    /// The phase the tables are computed from.
    pub fn phase(self) -> Phase {
        self.eh_abi().phase()
    }

    /// The name on the command line (`ehir tables --abi NAME`).
    pub fn name(self) -> &'static str {
        match self {
            TableFormat::Itanium => "itanium",
            TableFormat::Msvc => "msvc",
            TableFormat::Clr => "clr",
        }
    }
}

/// Why tables could not be built.
#[derive(Debug, thiserror::Error)]
pub enum TablesError {
    /// The IR does not have the structure the tables need.
    #[error("{}", .0.message)]
    Ir(Diagnostic),
    /// An assembly listing could not be read.
    #[error("{0}")]
    Asm(String),
    /// The module or function handed to a table builder does not verify: the verifier's
    /// diagnostics ([`ehir_core::verifier::verify_input`]), each message starting with
    /// `input does not verify: `. No table was built.
    #[error("{}", .0.0.iter().map(|d| d.message.as_str()).collect::<Vec<_>>().join("\n"))]
    Input(ehir_core::Diagnostics),
}

impl TablesError {
    /// The error as a located diagnostic.
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            TablesError::Ir(d) => d.clone(),
            TablesError::Asm(m) => Diagnostic::error(ehir_core::Loc::NONE, m.clone()),
            TablesError::Input(diags) => match diags.0.split_first() {
                Some((first, rest)) => rest.iter().fold(first.clone(), |d, more| {
                    d.with_note(more.loc, &more.message)
                }),
                None => Diagnostic::error(ehir_core::Loc::NONE, "input does not verify"),
            },
        }
    }
}

/// What the text of the tables shows besides the model.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct RenderOptions {
    /// Itanium: ehir's encoding of the action and type tables ([`lsda::render_bytes`]).
    pub bytes: bool,
}

/// The tables of one function as text (`None` for a declaration).
pub fn function_tables(
    ctx: &ModuleCtx,
    func: &Function,
    abi: TableFormat,
) -> Result<Option<String>, TablesError> {
    function_tables_with(ctx, func, abi, RenderOptions::default())
}

/// [`function_tables`] with [`RenderOptions`]. The function is verified first
/// ([`TablesError::Input`]).
pub fn function_tables_with(
    ctx: &ModuleCtx,
    func: &Function,
    abi: TableFormat,
    options: RenderOptions,
) -> Result<Option<String>, TablesError> {
    verify_then(ctx, func, || {
        verified_function_tables(ctx, func, abi, options)
    })
}

/// [`function_tables_with`] of a function already verified.
fn verified_function_tables(
    ctx: &ModuleCtx,
    func: &Function,
    abi: TableFormat,
    options: RenderOptions,
) -> Result<Option<String>, TablesError> {
    if func.is_declaration() {
        return Ok(None);
    }
    if func.phase != abi.phase() {
        return Err(TablesError::Ir(Diagnostic::error(
            func.loc,
            format!(
                "@{} is in the {} phase; {} tables need the {} phase",
                ctx.name(func.name),
                func.phase.name(),
                abi.name(),
                abi.phase().name()
            ),
        )));
    }
    let none = || format!("function @{}: no EH tables\n", ctx.name(func.name));
    let text = match abi {
        TableFormat::Msvc => match wineh::verified_function_tables(ctx, func)? {
            Some(t) => wineh::render(ctx, func, &t),
            None => none(),
        },
        TableFormat::Itanium => match lsda::function_lsda(func)? {
            Some(l) if options.bytes => lsda::render(ctx, func, &l) + &lsda::render_bytes(ctx, &l),
            Some(l) => lsda::render(ctx, func, &l),
            None => none(),
        },
        TableFormat::Clr => match clr::verified_function_clauses(ctx, func)? {
            Some(c) => clr::render(ctx, func, &c),
            None => none(),
        },
    };
    Ok(Some(text))
}

/// The LSDA text of a function of `module`, with calls counted as LLVM counts them
/// ([`lsda::module_function_lsda`]).
fn module_itanium_tables(
    module: &Module,
    func: &Function,
    options: RenderOptions,
) -> Result<Option<String>, TablesError> {
    if func.is_declaration() || func.phase != Phase::Itanium {
        return verified_function_tables(&module.ctx, func, TableFormat::Itanium, options);
    }
    let ctx = &module.ctx;
    Ok(Some(
        match lsda::verified_module_function_lsda(module, func)? {
            Some(l) if options.bytes => lsda::render(ctx, func, &l) + &lsda::render_bytes(ctx, &l),
            Some(l) => lsda::render(ctx, func, &l),
            None => format!("function @{}: no EH tables\n", ctx.name(func.name)),
        },
    ))
}

/// The tables of every function definition of a module, in source order. All errors are
/// collected.
pub fn module_tables(module: &Module, abi: TableFormat) -> Result<String, Vec<TablesError>> {
    module_tables_with(module, abi, RenderOptions::default())
}

/// [`module_tables`] with [`RenderOptions`]. The module is verified first (one
/// [`TablesError::Input`]).
pub fn module_tables_with(
    module: &Module,
    abi: TableFormat,
    options: RenderOptions,
) -> Result<String, Vec<TablesError>> {
    ehir_core::verifier::verify_input(module).map_err(|d| vec![TablesError::Input(d)])?;
    let mut out = String::new();
    let mut errors = Vec::new();
    for item in &module.items {
        let Item::Function(id) = *item else { continue };
        let func = &module.functions[id];
        let text = match abi {
            TableFormat::Itanium => module_itanium_tables(module, func, options),
            _ => verified_function_tables(&module.ctx, func, abi, options),
        };
        match text {
            Ok(Some(text)) => out.push_str(&text),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// What `tables` makes of `func` once `func` verifies ([`TablesError::Input`] where it
/// does not).
pub(crate) fn verify_then<T>(
    ctx: &ModuleCtx,
    func: &Function,
    tables: impl FnOnce() -> Result<T, TablesError>,
) -> Result<T, TablesError> {
    ehir_core::verifier::verify_function_input(ctx, func).map_err(TablesError::Input)?;
    tables()
}

/// A function's table rendered as text: the line `function @name: <summary>`, then what
/// `body` writes with the function's names.
pub(crate) fn render_function_table(
    ctx: &ModuleCtx,
    func: &Function,
    summary: &str,
    body: impl FnOnce(&Names, &mut String),
) -> String {
    let names = Names::new(func);
    let mut out = format!("function @{}: {summary}\n", ctx.name(func.name));
    body(&names, &mut out);
    out
}
