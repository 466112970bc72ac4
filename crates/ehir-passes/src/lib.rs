//! The passes of ehir and the manager that runs them: named passes from a pipeline string
//! (`lowering-prepare,flatten-cfg`), verification after every pass, a check that every
//! function reached the phase the pass promises, and optional printing after each pass.
//!
//! Passes: `canonicalize` ([`canonicalize`]), `lowering-prepare` ([`lowering_prepare`]),
//! `flatten-cfg` ([`flatten_cfg`]), `simplify-cfg` ([`simplify_cfg`]),
//! `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc` ([`eh_abi`]).

pub mod canonicalize;
pub mod eh_abi;
pub mod flatten_cfg;
pub mod lowering_prepare;
pub mod manager;
pub mod pass;
mod parallel;
pub mod region_utils;
pub mod simplify_cfg;

pub use manager::{KNOWN_PASSES, PassError, PassManager, lower_to, pass_by_name, phase_reached};
pub use pass::Pass;
