//! The pass manager: a pipeline of named passes, each followed by the verifier and a check
//! that every function definition reached the phase the pass promises.

use crate::eh_abi::EhAbiLowering;
use crate::pass::FunctionStep;
pub use crate::pass::Pass;
use crate::simplify_cfg::SimplifyCfg;
use ehir_core::abi::EhAbi;
use ehir_core::verifier::{as_input_errors, verify_module, verify_module_where};
use ehir_core::{Diagnostic, Diagnostics, EntityRef, Function, Loc, Module, Phase};
use std::fmt;

/// `lowering-prepare`.
pub struct LoweringPrepare;

impl Pass for LoweringPrepare {
    fn name(&self) -> &'static str {
        "lowering-prepare"
    }
    fn function_step(&self, _: &Module) -> Option<FunctionStep<'_>> {
        let mut step = FunctionStep::on_definitions_in(
            Phase::Structured,
            crate::lowering_prepare::lowering_prepare_function,
        );
        // The manager tells the functions it changed by their op count
        // ([`CHANGES_ONLY_BY_ADDING_OPS`]), which compacting would blur; it changes few.
        step.compacts = false;
        Some(step)
    }
}

/// `flatten-cfg`.
pub struct FlattenCfg;

impl Pass for FlattenCfg {
    fn name(&self) -> &'static str {
        "flatten-cfg"
    }
    fn result_phase(&self) -> Option<Phase> {
        Some(Phase::Flat)
    }
    fn function_step(&self, module: &Module) -> Option<FunctionStep<'_>> {
        Some(crate::flatten_cfg::flatten_step(module))
    }
}

/// Every pass name a pipeline may use.
pub const KNOWN_PASSES: &[&str] = &[
    "canonicalize",
    "lowering-prepare",
    "flatten-cfg",
    "simplify-cfg",
    "remove-unreachable-blocks",
    "eh-abi-lowering=itanium",
    "eh-abi-lowering=msvc",
];

/// The pass with this pipeline name.
pub fn pass_by_name(name: &str) -> Option<Box<dyn Pass>> {
    match name {
        "canonicalize" => Some(Box::new(crate::canonicalize::Canonicalize)),
        "lowering-prepare" => Some(Box::new(LoweringPrepare)),
        "flatten-cfg" => Some(Box::new(FlattenCfg)),
        "simplify-cfg" => Some(Box::new(SimplifyCfg)),
        "remove-unreachable-blocks" => Some(Box::new(crate::simplify_cfg::RemoveUnreachableBlocks)),
        "eh-abi-lowering=itanium" => Some(Box::new(EhAbiLowering {
            abi: EhAbi::Itanium,
        })),
        "eh-abi-lowering=msvc" => Some(Box::new(EhAbiLowering { abi: EhAbi::Msvc })),
        _ => None,
    }
}

/// Whether a function at `phase` satisfies a pass that promises `target`.
pub fn phase_reached(phase: Phase, target: Phase) -> bool {
    match target {
        Phase::Structured => true,
        Phase::Flat => phase != Phase::Structured,
        Phase::Itanium | Phase::Msvc => phase == target,
    }
}

/// Why a pipeline could not run or failed.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The module handed to [`PassManager::run`] (or [`lower_to`]) does not verify; no
    /// pass ran. `diagnostics` are the verifier's, unprefixed.
    #[error("input does not verify: {diagnostics}")]
    Input {
        /// What the verifier found.
        diagnostics: Diagnostics,
    },
    /// A pipeline names a pass that does not exist (or an empty name).
    #[error("unknown pass '{name}' (known passes: {})", KNOWN_PASSES.join(", "))]
    UnknownPass {
        /// The name as written in the pipeline.
        name: String,
    },
    /// A pass reported errors (IR it cannot handle); the module may be partly rewritten.
    #[error("pass '{pass}' failed: {diagnostics}")]
    Failed {
        /// The pass's pipeline name.
        pass: &'static str,
        /// What it reported.
        diagnostics: Diagnostics,
    },
    /// A pass produced IR that does not verify: a bug in the pass.
    #[error("the IR after pass '{pass}' does not verify: {diagnostics}")]
    Verify {
        /// The pass's pipeline name.
        pass: &'static str,
        /// What the verifier found in its output.
        diagnostics: Diagnostics,
    },
    /// A pass left function definitions short of the phase it promises
    /// ([`Pass::result_phase`]).
    #[error("after pass '{pass}': {diagnostics}")]
    Phase {
        /// The pass's pipeline name.
        pass: &'static str,
        /// One diagnostic per function in the wrong phase.
        diagnostics: Diagnostics,
    },
    /// [`lower_to`] was asked for a phase some function definitions cannot reach (they
    /// are beyond it, or at the other ABI); nothing ran.
    #[error("cannot lower to {target}: {diagnostics}")]
    Target {
        /// The phase asked for.
        target: PhaseName,
        /// One diagnostic per function that cannot reach it.
        diagnostics: Diagnostics,
    },
}

/// A phase, displayed by name.
#[derive(Debug, Clone, Copy)]
pub struct PhaseName(pub Phase);

impl fmt::Display for PhaseName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl PassError {
    /// The error as located diagnostics (for `file:line:col: error:` rendering).
    pub fn diagnostics(&self) -> Diagnostics {
        match self {
            PassError::UnknownPass { .. } => {
                Diagnostics(vec![Diagnostic::error(Loc::NONE, self.to_string())])
            }
            PassError::Input { diagnostics } => as_input_errors(diagnostics.clone()),
            PassError::Failed { diagnostics, .. }
            | PassError::Verify { diagnostics, .. }
            | PassError::Phase { diagnostics, .. }
            | PassError::Target { diagnostics, .. } => diagnostics.clone(),
        }
    }

    /// The pass that failed, if the error comes from one.
    pub fn pass(&self) -> Option<&'static str> {
        match self {
            PassError::Failed { pass, .. }
            | PassError::Verify { pass, .. }
            | PassError::Phase { pass, .. } => Some(pass),
            _ => None,
        }
    }
}

type PrintHook = Box<dyn FnMut(&str, &Module)>;

/// Runs passes in order, verifying after each one.
pub struct PassManager {
    pub(crate) passes: Vec<Box<dyn Pass>>,
    pub(crate) verify_each: bool,
    verify_input: bool,
    pub(crate) print_after_each: Option<PrintHook>,
}

impl Default for PassManager {
    fn default() -> Self {
        Self::new()
    }
}

impl PassManager {
    /// An empty pipeline that verifies after each pass.
    pub fn new() -> Self {
        PassManager {
            passes: Vec::new(),
            verify_each: true,
            verify_input: true,
            print_after_each: None,
        }
    }

    /// A pipeline from comma-separated pass names (`lowering-prepare,flatten-cfg`).
    /// Whitespace around names is ignored; an unknown or empty name is an error that lists
    /// the known passes.
    pub fn from_pipeline(pipeline: &str) -> Result<Self, PassError> {
        let mut pm = PassManager::new();
        for name in pipeline.split(',').map(str::trim) {
            match pass_by_name(name) {
                Some(p) => pm.add(p),
                None => {
                    return Err(PassError::UnknownPass {
                        name: name.to_string(),
                    });
                }
            }
        }
        Ok(pm)
    }

    /// Appends a pass to the pipeline.
    pub fn add(&mut self, pass: Box<dyn Pass>) {
        self.passes.push(pass);
    }

    /// Whether to run the verifier on the input and after each pass (default: yes). Off,
    /// nothing is verified (benchmarks of the passes alone); the caller vouches for the
    /// input, and an invalid one may make a pass fail in unspecified ways.
    pub fn set_verify_each(&mut self, verify: bool) {
        self.verify_each = verify;
    }

    /// Whether [`run`](Self::run) verifies its input before the first pass (default: yes,
    /// if [`set_verify_each`](Self::set_verify_each) is on). Turn it off only for a module
    /// that was just verified, to verify it once.
    pub fn set_verify_input(&mut self, verify: bool) {
        self.verify_input = verify;
    }

    /// Calls `hook(pass_name, module)` after each pass that succeeded (and verified).
    pub fn set_print_after_each(&mut self, hook: impl FnMut(&str, &Module) + 'static) {
        self.print_after_each = Some(Box::new(hook));
    }

    /// The names of the passes, in order.
    pub fn pass_names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Whether the pipeline has no pass.
    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// Readies upstream's structured catch handlers for the pipeline: `flatten-cfg`
    /// flattens them as written (upstream's block structure) when only passes that leave
    /// catch handlers alone come before it; otherwise they become ehir's before any pass
    /// meets them. Both [`PassManager::run`] and
    /// [`PassManager::run_function_by_function`] start with it.
    pub(crate) fn prepare_catches(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let native = self
            .passes
            .iter()
            .map(|p| p.name())
            .take_while(|&n| n == "lowering-prepare" || n == "canonicalize" || n == "flatten-cfg")
            .any(|n| n == "flatten-cfg");
        if native {
            module.expand_catch_param_constructions().map(|_| ())
        } else {
            module.rewrite_structured_catches().map(|_| ())
        }
    }

    /// Runs the pipeline: verifies the input ([`PassError::Input`] if it does not verify,
    /// before any pass touched it), then runs each pass, checks the phase it promises and
    /// verifies its output. On error the module may be partly rewritten.
    ///
    /// ```
    /// use ehir_passes::{PassError, PassManager};
    ///
    /// // An `int` function that falls off its end: the input is to blame, not a pass.
    /// let text = "cir.func @main() -> !s32i {\n  cir.return\n}\n";
    /// let mut module = ehir_reader::parse_module("bad.cir", text).unwrap();
    /// let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
    /// let err = pm.run(&mut module).unwrap_err();
    /// assert!(matches!(err, PassError::Input { .. }));
    /// assert_eq!(err.pass(), None);
    /// assert!(err.to_string().starts_with("input does not verify: "));
    /// ```
    pub fn run(&mut self, module: &mut Module) -> Result<(), PassError> {
        if self.verify_each && self.verify_input {
            verify_module(module).map_err(|diagnostics| PassError::Input { diagnostics })?;
        }
        if let Some(first) = self.passes.first() {
            self.prepare_catches(module)
                .map_err(|diagnostics| PassError::Failed {
                    pass: first.name(),
                    diagnostics,
                })?;
        }
        for pass in &self.passes {
            let name = pass.name();
            let before =
                (self.verify_each && CHANGES_ONLY_BY_ADDING_OPS.contains(&name)).then(|| {
                    module
                        .functions
                        .values()
                        .map(Fingerprint::of)
                        .collect::<Vec<_>>()
                });
            pass.run(module).map_err(|diagnostics| PassError::Failed {
                pass: name,
                diagnostics,
            })?;
            if let Some(target) = pass.result_phase() {
                check_phases(module, target).map_err(|diagnostics| PassError::Phase {
                    pass: name,
                    diagnostics,
                })?;
            }
            if self.verify_each {
                let verified = match &before {
                    Some(before) => verify_module_where(module, |id| {
                        before.get(id.index()) != Some(&Fingerprint::of(&module.functions[id]))
                    }),
                    None => verify_module(module),
                };
                verified.map_err(|diagnostics| PassError::Verify {
                    pass: name,
                    diagnostics,
                })?;
            }
            if let Some(hook) = &mut self.print_after_each {
                hook(name, module);
            }
        }
        Ok(())
    }
}

/// Passes that change a function only by creating ops in it (and interning): a function
/// whose [`Fingerprint`] is unchanged after such a pass was not touched, and the manager
/// does not verify it again (it verified before the pass, or is the manager's verified
/// input). `lowering-prepare` expands array ops into new ops and leaves every other
/// function as it was.
pub(crate) const CHANGES_ONLY_BY_ADDING_OPS: &[&str] = &["lowering-prepare"];

/// What a pass in [`CHANGES_ONLY_BY_ADDING_OPS`] changes when it touches a function.
#[derive(PartialEq, Eq)]
struct Fingerprint {
    ops: usize,
    phase: Phase,
}

impl Fingerprint {
    fn of(func: &Function) -> Fingerprint {
        Fingerprint {
            ops: func.dfg.ops.len(),
            phase: func.phase,
        }
    }
}

/// Every function definition is at `target` (or beyond it, for flat).
fn check_phases(module: &Module, target: Phase) -> Result<(), Diagnostics> {
    let diags = phase_errors(
        module,
        |phase| phase_reached(phase, target),
        &format!("expected {}", target.name()),
    );
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}

/// `function @f is in phase p, <complaint>` for every function definition whose phase
/// `fine` rejects.
fn phase_errors(module: &Module, fine: impl Fn(Phase) -> bool, complaint: &str) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for f in module.functions.values() {
        if f.is_declaration() || fine(f.phase) {
            continue;
        }
        diags.push(Diagnostic::error(
            f.loc,
            format!(
                "function @{} is in phase {}, {complaint}",
                module.ctx.name(f.name),
                f.phase.name(),
            ),
        ));
    }
    diags
}

/// Brings every function definition of the module to `target`: structured functions
/// through `lowering-prepare`, `flatten-cfg` and `simplify-cfg`, flat ones through the EH ABI lowering of
/// `target` (Itanium or MSVC; after the Itanium one, the blocks it left unreachable are
/// removed). Verifies after every pass. A function already beyond
/// `target` (or at the other ABI) is an error. The input is verified first, also when
/// there is nothing to lower ([`PassError::Input`]).
pub fn lower_to(module: &mut Module, target: Phase) -> Result<(), PassError> {
    verify_module(module).map_err(|diagnostics| PassError::Input { diagnostics })?;
    let lowerable = |phase| match target {
        Phase::Structured => phase == Phase::Structured,
        Phase::Flat => matches!(phase, Phase::Structured | Phase::Flat),
        Phase::Itanium | Phase::Msvc => {
            matches!(phase, Phase::Structured | Phase::Flat) || phase == target
        }
    };
    let diags = phase_errors(
        module,
        lowerable,
        &format!("which cannot be lowered to {}", target.name()),
    );
    if !diags.is_empty() {
        return Err(PassError::Target {
            target: PhaseName(target),
            diagnostics: diags,
        });
    }
    let any_at = |module: &Module, p: Phase| {
        module
            .functions
            .values()
            .any(|f| !f.is_declaration() && f.phase == p)
    };
    let mut pm = PassManager::new();
    pm.set_verify_input(false);
    if target != Phase::Structured && any_at(module, Phase::Structured) {
        pm.add(Box::new(LoweringPrepare));
        pm.add(Box::new(FlattenCfg));
        pm.add(Box::new(SimplifyCfg));
    }
    let needs_abi = any_at(module, Phase::Structured) || any_at(module, Phase::Flat);
    match target {
        Phase::Itanium if needs_abi => {
            pm.add(Box::new(EhAbiLowering {
                abi: EhAbi::Itanium,
            }));
            pm.add(Box::new(crate::simplify_cfg::RemoveUnreachableBlocks));
        }
        Phase::Msvc if needs_abi => pm.add(Box::new(EhAbiLowering { abi: EhAbi::Msvc })),
        _ => {}
    }
    pm.run(module)
}
