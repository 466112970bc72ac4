//! Handles a builder hands out: values, ops and blocks tagged with the builder that made
//! them, so that an entity of another function is an error instead of an alias.
//!
//! A core entity (`ehir_core::Value`, ...) is only an index into one function's tables:
//! value 3 of function A is a perfectly good index into function B. Every
//! [`crate::FunctionBuilder`] therefore gets a process-unique [`BuilderId`] and its
//! handles carry it next to the index (8 bytes instead of 4, still `Copy`). Each builder
//! method checks the tag of every handle it is given before touching the function: a
//! handle of another builder is a [`crate::BuilderErrorKind::ForeignEntity`] error, an
//! index beyond this function's tables an [`crate::BuilderErrorKind::InvalidEntity`]
//! error.
//!
//! A failing call that should have produced a value returns a *poison* handle: using it
//! later builds nothing and records no second error (the first one explains it), and
//! `finish` fails anyway, so poison never reaches a finished function.

use std::sync::atomic::{AtomicU32, Ordering};

/// The identity of one function builder (unique in the process).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct BuilderId(u32);

impl BuilderId {
    /// A fresh identity.
    pub(crate) fn fresh() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        BuilderId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The index a poison handle carries.
const POISON: u32 = u32::MAX;

macro_rules! tagged_handle {
    ($(#[$doc:meta])* $name:ident, $core:ty) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name {
            owner: BuilderId,
            index: u32,
        }

        impl $name {
            pub(crate) fn new(owner: BuilderId, entity: $core) -> Self {
                use ehir_core::EntityRef;
                $name {
                    owner,
                    index: entity.index() as u32,
                }
            }

            #[allow(dead_code)] // blocks have no failing constructor yet
            pub(crate) fn poison(owner: BuilderId) -> Self {
                $name {
                    owner,
                    index: POISON,
                }
            }

            /// Whether this handle stands for the result of a failed builder call.
            pub fn is_poison(self) -> bool {
                self.index == POISON
            }

            /// The builder that handed this handle out.
            pub fn owner(self) -> BuilderId {
                self.owner
            }

            /// The core entity, for reading the finished (or partly built) function
            /// (`None` for poison).
            pub fn raw(self) -> Option<$core> {
                use ehir_core::EntityRef;
                (!self.is_poison()).then(|| <$core>::new(self.index as usize))
            }
        }
    };
}

tagged_handle!(
    /// An SSA value of the function under construction (an op result or a block
    /// parameter), tagged with its builder.
    Value,
    ehir_core::Value
);
tagged_handle!(
    /// An op of the function under construction (for entering its regions, reading its
    /// results), tagged with its builder.
    Op,
    ehir_core::Op
);
tagged_handle!(
    /// A block of the function under construction, tagged with its builder.
    Block,
    ehir_core::Block
);
