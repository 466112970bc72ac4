//! The passes of ehir and the manager that runs them: named passes from a pipeline string
//! (`lowering-prepare,flatten-cfg`), verification after every pass, a check that every
//! function reached the phase the pass promises, and optional printing after each pass.
//!
//! Passes: `lowering-prepare` ([`lowering_prepare`]), `flatten-cfg` ([`flatten_cfg`]),
//! `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc` ([`eh_abi`]).

pub mod eh_abi;
pub mod flatten_cfg;
pub mod lowering_prepare;
pub mod manager;
mod parallel;
pub mod region_utils;

pub use manager::{
    KNOWN_PASSES, Pass, PassError, PassManager, lower_to, pass_by_name, phase_reached,
};
