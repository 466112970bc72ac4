//! Analyses shared by the verifier, the passes, the EH tables and the LLVM emitter, one
//! copy each:
//! - [`BlockGraph`]: the control flow view they read (entry block, first and last op of a
//!   block, successor blocks, where a value is defined), implemented by [`Function`] and by
//!   the verifier's index of a possibly malformed body;
//! - [`reachable_blocks`]: the blocks a region's entry reaches;
//! - [`predecessor_counts`]: how many edges enter each block;
//! - [`pad_of_token`], [`pad_parent`], [`block_pad`]: MSVC pads and their nesting;
//! - [`DominatorTree`]: dominators of any [`DirectedGraph`] (Cooper, Harvey and Kennedy's
//!   iterations within a linear budget, else Lengauer and Tarjan);
//! - [`funclet_colors`]: which funclet each block belongs to (LLVM's `colorEHFunclets`).
//!
//! [`Function`]: crate::Function

mod cfg;
mod dominators;
mod funclets;

pub use cfg::{BlockGraph, predecessor_counts, reachable_blocks};
pub use dominators::{DirectedGraph, DominatorTree};
pub use funclets::{block_pad, funclet_colors, is_pad, pad_of_token, pad_parent};
