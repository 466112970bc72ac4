//! The state of the modelled C++ runtime, following libstdc++'s `eh_alloc.cc`,
//! `eh_catch.cc` and `eh_throw.cc`: exception objects with their handler counts, the
//! stack of caught exceptions, the uncaught-exception count and the `std::unexpected`
//! and `std::terminate` handlers.
//!
//! Lifetime rule (as in libstdc++): `begin_catch` makes the handler count positive and
//! increments it; `end_catch` decrements it and destroys the exception when it reaches
//! zero; `rethrow` negates the count so that the `end_catch` of the handler that
//! rethrew only unlinks the exception instead of destroying it.
//!
//! A forced unwinding (`_Unwind_ForcedUnwind`, see `forced_unwind.rs`) is a foreign
//! exception to libstdc++: `begin_catch` gives its handler a null pointer and leaves the
//! uncaught count alone, `end_catch` deletes it (its `exception_cleanup`), and `rethrow`
//! unlinks it at once.

use ehir_core::Symbol;

/// One exception object.
#[derive(Clone, Debug)]
pub struct Exception {
    /// `exn#id` in traces; numbered from 1 in allocation order.
    pub id: u32,
    /// The thrown type, mangled (`i`, `9SomeClass`); empty until thrown.
    pub ty: String,
    /// The exception object (`exn#id+0`).
    pub object: u64,
    /// Its destructor, run when the exception is destroyed.
    pub dtor: Option<Symbol>,
    /// libstdc++'s `handlerCount`.
    pub handler_count: i32,
    /// The pointer the current handler receives (`adjustedPtr`), set when a handler
    /// is selected.
    pub adjusted: u64,
    /// The catch type (mangled; `None`: catch-all) of the handler selected for it.
    pub handler: Option<String>,
    /// The exception specification an Itanium landing pad found violated (its filter
    /// clause), for `__cxa_call_unexpected`.
    pub filter: Option<Vec<String>>,
    /// The thrown value as rendered at throw time (empty for classes).
    pub value: String,
    pub thrown: bool,
    pub destroyed: bool,
    /// Set for a forced unwinding: its stop function and how far it got.
    pub forced: Option<ForcedUnwind>,
}

/// The state of a forced unwinding (`_Unwind_ForcedUnwind`).
#[derive(Clone, Copy, Debug)]
pub struct ForcedUnwind {
    /// The stop function (a function pointer).
    pub stop: u64,
    /// The stop function's `stop_parameter`.
    pub parameter: u64,
    /// The depth of the innermost frame the stop function was called for (frames are
    /// only left while unwinding, so a frame deeper than this one is new to it).
    pub stopped_at: u32,
}

/// The runtime's global state.
#[derive(Default, Debug)]
pub struct Runtime {
    exceptions: Vec<Exception>,
    /// `caughtExceptions`, most recent last.
    pub caught: Vec<u32>,
    /// `uncaughtExceptions`.
    pub uncaught: i32,
    /// The `std::set_unexpected` handler (a function pointer; 0 = default).
    pub unexpected_handler: u64,
    /// The `std::set_terminate` handler (0 = libstdc++'s verbose terminate handler).
    pub terminate_handler: u64,
}

/// What `end_catch` decided.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EndCatch {
    /// Nothing to destroy (no current exception, still handled, or rethrown).
    Keep,
    /// The exception's last handler ended: destroy it.
    Destroy(u32),
}

impl Runtime {
    /// Registers a new (not yet thrown) exception whose object is at `object`; returns
    /// its id.
    pub fn new_exception(&mut self, object: u64) -> u32 {
        let id = self.exceptions.len() as u32 + 1;
        self.exceptions.push(Exception {
            id,
            ty: String::new(),
            object,
            dtor: None,
            handler_count: 0,
            adjusted: object,
            handler: None,
            filter: None,
            value: String::new(),
            thrown: false,
            destroyed: false,
            forced: None,
        });
        id
    }

    /// Whether exception `id` is a forced unwinding.
    pub fn is_forced(&self, id: u32) -> bool {
        self.get(id).is_some_and(|e| e.forced.is_some())
    }

    /// Number of exceptions allocated so far (the next id is this plus one).
    pub fn count(&self) -> u32 {
        self.exceptions.len() as u32
    }

    pub fn get(&self, id: u32) -> Option<&Exception> {
        self.exceptions.get((id as usize).wrapping_sub(1))
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut Exception> {
        self.exceptions.get_mut((id as usize).wrapping_sub(1))
    }

    /// The exception whose object is at `object`.
    pub fn by_object(&self, object: u64) -> Option<u32> {
        self.exceptions
            .iter()
            .rev()
            .find(|e| e.object == object && !e.destroyed)
            .map(|e| e.id)
    }

    /// `__cxa_begin_catch`: returns the adjusted pointer.
    pub fn begin_catch(&mut self, id: u32) -> u64 {
        let top = self.caught.last().copied();
        let Some(e) = self.get_mut(id) else { return 0 };
        if e.forced.is_some() {
            // A foreign exception: no header to count in, no pointer to give.
            e.handler_count = 1;
            if top != Some(id) {
                self.caught.push(id);
            }
            return 0;
        }
        let count = e.handler_count;
        e.handler_count = if count < 0 { -count + 1 } else { count + 1 };
        let adjusted = e.adjusted;
        self.uncaught -= 1;
        if top != Some(id) {
            self.caught.push(id);
        }
        adjusted
    }

    /// `__cxa_end_catch`.
    pub fn end_catch(&mut self) -> EndCatch {
        let Some(&id) = self.caught.last() else {
            return EndCatch::Keep;
        };
        let Some(e) = self.get_mut(id) else {
            return EndCatch::Keep;
        };
        if e.forced.is_some() {
            // Processing of a foreign exception is complete when its handler ends.
            e.handler_count = 0;
            self.caught.pop();
            return EndCatch::Destroy(id);
        }
        let mut count = e.handler_count;
        let result = if count < 0 {
            count += 1;
            if count == 0 {
                self.caught.pop();
            }
            EndCatch::Keep
        } else {
            count -= 1;
            if count == 0 {
                self.caught.pop();
                EndCatch::Destroy(id)
            } else {
                EndCatch::Keep
            }
        };
        if let Some(e) = self.get_mut(id) {
            e.handler_count = count;
        }
        result
    }

    /// `__cxa_rethrow`: the current exception, marked rethrown; `None` when there is no
    /// current exception (then `std::terminate` is called).
    pub fn rethrow(&mut self) -> Option<u32> {
        let id = *self.caught.last()?;
        let e = self.get_mut(id)?;
        if e.forced.is_some() {
            // A foreign exception is unlinked at once (its handler's end does nothing).
            e.handler_count = 0;
            self.caught.pop();
        } else {
            e.handler_count = -e.handler_count;
        }
        self.uncaught += 1;
        Some(id)
    }

    /// The exception `std::terminate`'s message names: the most recently caught one.
    pub fn current(&self) -> Option<u32> {
        self.caught.last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runtime with one exception thrown and caught by one handler.
    fn caught_exception() -> (Runtime, u32) {
        let mut rt = Runtime::default();
        let a = rt.new_exception(100);
        rt.uncaught += 1;
        rt.begin_catch(a);
        (rt, a)
    }

    #[test]
    fn destroyed_when_last_handler_ends() {
        let (mut rt, a) = caught_exception();
        assert_eq!(rt.uncaught, 0);
        assert_eq!(rt.current(), Some(a));
        assert_eq!(rt.end_catch(), EndCatch::Destroy(a));
        assert_eq!(rt.current(), None);
    }

    #[test]
    fn rethrown_exception_survives_its_first_handler() {
        let (mut rt, a) = caught_exception();
        assert_eq!(rt.rethrow(), Some(a));
        // Caught again by an outer handler before the inner one's end_catch ran.
        rt.begin_catch(a);
        assert_eq!(rt.get(a).unwrap().handler_count, 2);
        assert_eq!(rt.end_catch(), EndCatch::Keep);
        assert_eq!(rt.end_catch(), EndCatch::Destroy(a));
    }

    #[test]
    fn rethrow_unlinks_without_destroying() {
        let mut rt = Runtime::default();
        let a = rt.new_exception(100);
        rt.begin_catch(a);
        rt.rethrow();
        // The rethrowing handler ends while unwinding: only unlinked.
        assert_eq!(rt.end_catch(), EndCatch::Keep);
        assert_eq!(rt.current(), None);
        assert_eq!(rt.get(a).unwrap().handler_count, 0);
        // Caught again later, then destroyed.
        rt.begin_catch(a);
        assert_eq!(rt.end_catch(), EndCatch::Destroy(a));
    }

    #[test]
    fn nested_exceptions() {
        let mut rt = Runtime::default();
        let a = rt.new_exception(100);
        let b = rt.new_exception(200);
        rt.begin_catch(a);
        rt.begin_catch(b);
        assert_eq!(rt.current(), Some(b));
        assert_eq!(rt.end_catch(), EndCatch::Destroy(b));
        assert_eq!(rt.current(), Some(a));
        assert_eq!(rt.end_catch(), EndCatch::Destroy(a));
        assert_eq!(rt.rethrow(), None);
    }
}
