//! The passes of ehir and the manager that runs them: named passes from a pipeline string
//! (`lowering-prepare,flatten-cfg`), verification after every pass, a check that every
//! function reached the phase the pass promises, and optional printing after each pass.
//!
//! Passes: `canonicalize` ([`canonicalize`]), `lowering-prepare` ([`lowering_prepare`]),
//! `flatten-cfg` ([`flatten_cfg`]), `simplify-cfg` ([`simplify_cfg`]),
//! `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc` ([`eh_abi`]).
//!
//! [`lower_to`] brings a whole module to a phase with the passes it needs, verifying the
//! input first and the IR after every pass:
//!
//! ```
//! use ehir_core::Phase;
//!
//! let text = "cir.func @f()\n\
//!             cir.func @g() {\n\
//!               cir.cleanup.scope {\n\
//!                 cir.call @f() : () -> ()\n\
//!                 cir.yield\n\
//!               } cleanup all {\n\
//!                 cir.call @f() : () -> ()\n\
//!                 cir.yield\n\
//!               }\n\
//!               cir.return\n\
//!             }\n";
//! let mut module = ehir_reader::parse_module("g.cir", text).expect("parses");
//! ehir_passes::lower_to(&mut module, Phase::Flat).expect("lowers");
//! let g = &module.functions[module.function_named("g").unwrap()];
//! assert_eq!(g.phase, Phase::Flat);
//! let flat = ehir_core::printer::module_to_string(&module);
//! assert!(flat.contains("cir.try_call @f()"), "{flat}");
//! assert!(!flat.contains("cir.cleanup.scope"), "{flat}");
//!
//! // A named pipeline, as `ehir opt --passes` runs it:
//! let mut module = ehir_reader::parse_module("g.cir", text).expect("parses");
//! let mut pm = ehir_passes::PassManager::from_pipeline("lowering-prepare,flatten-cfg")
//!     .expect("known passes");
//! pm.run(&mut module).expect("runs");
//! ```

#![warn(missing_docs)]

pub mod canonicalize;
pub mod eh_abi;
pub mod flatten_cfg;
pub mod function_by_function;
pub mod lowering_prepare;
pub mod manager;
mod parallel;
pub mod pass;
pub mod region_utils;
pub mod simplify_cfg;

pub use function_by_function::FunctionByFunctionError;
pub use manager::{KNOWN_PASSES, PassError, PassManager, lower_to, pass_by_name, phase_reached};
pub use pass::{FunctionStep, Pass};
