//! Forced unwinding: `_Unwind_ForcedUnwind(exception, stop, stop_parameter)` of the
//! Itanium ABI's base unwinding interface (what thread cancellation and `pthread_exit`
//! use) and `_Unwind_DeleteException`, modelled on libgcc's unwinder and libstdc++'s
//! personality routine:
//!
//! - **No search phase.** The `_Unwind_Exception` the program made is unwound at once
//!   (phase 2 with `_UA_FORCE_UNWIND`); libgcc stores the stop function and its
//!   parameter in its `private_1` and `private_2` fields, and so does the model.
//! - **The stop function** is called before each frame is unwound, with
//!   `_UA_FORCE_UNWIND | _UA_CLEANUP_PHASE`, and once more past the outermost frame with
//!   `_UA_END_OF_STACK` added. A result other than `_URC_NO_REASON`, or a return at the
//!   end of the stack, makes `_Unwind_ForcedUnwind` return (`_URC_FATAL_PHASE2_ERROR`,
//!   `_URC_END_OF_STACK`) when no frame ran code for the unwinding yet; afterwards
//!   libgcc's `_Unwind_Resume` aborts.
//! - **In each frame** (libstdc++'s personality): cleanups run; `catch (...)` catches
//!   it (the handler gets a null pointer; its end deletes the exception, so a handler
//!   that does not rethrow stops the unwinding), a typed handler only when it names
//!   `abi::__forced_unwind`; an exception specification stops it only when it is empty
//!   (`throw()`: `std::unexpected`, then `std::terminate`, without the exception
//!   becoming current); a noexcept boundary calls `std::terminate` directly.
//! - **Deleting it** (the end of its handler, `_Unwind_DeleteException`) calls its
//!   `exception_cleanup` with `_URC_FOREIGN_EXCEPTION_CAUGHT` when there is one.
//!
//! Not modelled: the frames outside the program (the C runtime's below `main`) are not
//! shown to the stop function; its context argument is null (`_Unwind_GetIP` and friends
//! are unmodelled externals); and it is called once per frame, where libgcc calls it a
//! second time for a frame whose cleanup resumes the unwinding.

use crate::externals::ExternalResult;
use crate::machine::{Boundary, CtrlState, Frame, Machine, Slot, Stop, SyncEnd};
use crate::runtime::ForcedUnwind;
use crate::structured::runs_during_unwinding;
use crate::trace::Event;
use ehir_core::{Block, HandlerKey, OpKind, Phase};

/// `_UA_CLEANUP_PHASE`.
const UA_CLEANUP_PHASE: u64 = 2;
/// `_UA_FORCE_UNWIND`.
const UA_FORCE_UNWIND: u64 = 8;
/// `_UA_END_OF_STACK`.
const UA_END_OF_STACK: u64 = 16;
/// `_URC_NO_REASON`.
const URC_NO_REASON: u64 = 0;
/// `_URC_FOREIGN_EXCEPTION_CAUGHT`.
const URC_FOREIGN_EXCEPTION_CAUGHT: u64 = 1;
/// `_URC_FATAL_PHASE2_ERROR`.
const URC_FATAL_PHASE2_ERROR: u64 = 2;
/// `_URC_END_OF_STACK`.
const URC_END_OF_STACK: u64 = 5;
/// The type libstdc++'s personality matches a forced unwinding against
/// (`abi::__forced_unwind`, mangled).
pub(crate) const FORCED_UNWIND_TYPE: &str = "N10__cxxabiv115__forced_unwindE";
/// Offsets in `struct _Unwind_Exception`: `exception_cleanup`, `private_1`, `private_2`.
const CLEANUP_FIELD: i64 = 8;
const PRIVATE_1_FIELD: i64 = 16;
const PRIVATE_2_FIELD: i64 = 24;

/// How the first walk of a forced unwinding ended.
enum FirstWalk {
    /// Unwinding runs code this many frames out from the running one (or meets a
    /// boundary of the interpreter after leaving them).
    Lands(u32),
    /// `_Unwind_ForcedUnwind` returns this reason code; nothing was unwound.
    Returns(u64),
}

impl<'m> Machine<'m> {
    /// `_Unwind_ForcedUnwind(exception, stop, stop_parameter)`, called from the running
    /// frame.
    pub(crate) fn forced_unwind(
        &mut self,
        object: u64,
        stop: u64,
        parameter: u64,
    ) -> Result<ExternalResult, Stop> {
        for (field, value) in [(PRIVATE_1_FIELD, stop), (PRIVATE_2_FIELD, parameter)] {
            self.mem
                .write_uint(crate::memory::offset_by(object, field), 8, value)
                .map_err(|e| self.mem_error(e))?;
        }
        let exn = self.rt.new_exception(object);
        if let Some(e) = self.rt.get_mut(exn) {
            e.ty = FORCED_UNWIND_TYPE.to_string();
            e.thrown = true;
            e.forced = Some(ForcedUnwind {
                stop,
                parameter,
                stopped_at: u32::MAX,
            });
        }
        if self.config.record_trace {
            self.record(Event::Throw {
                id: exn,
                ty: crate::cxx_types::display_mangled(FORCED_UNWIND_TYPE),
                value: String::new(),
            });
        }
        match self.forced_first_walk(exn)? {
            FirstWalk::Returns(code) => {
                // The program owns the object; this unwinding is over.
                if let Some(e) = self.rt.get_mut(exn) {
                    e.destroyed = true;
                }
                Ok(ExternalResult::Value(Some(code)))
            }
            FirstWalk::Lands(frames) => {
                for _ in 0..frames {
                    self.leave_frame_unwinding(exn)?;
                }
                self.unwind(exn)?;
                Ok(ExternalResult::Transferred)
            }
        }
    }

    /// Walks the frames from the running one outwards, calling the stop function for
    /// each, up to the first where unwinding would run code (nothing is unwound yet).
    fn forced_first_walk(&mut self, exn: u32) -> Result<FirstWalk, Stop> {
        let mut left = 0u32;
        // The slot of the frame being looked at (`None`: the running frame).
        let mut slot: Option<usize> = None;
        loop {
            let depth = self.depth.saturating_sub(left);
            if self.call_stop(exn, depth, false)? != URC_NO_REASON {
                return Ok(FirstWalk::Returns(URC_FATAL_PHASE2_ERROR));
            }
            let lands = match slot {
                None => self.forced_lands(&self.cur, exn),
                Some(i) => match &self.stack[i] {
                    Slot::Frame(f) => self.forced_lands(f, exn),
                    Slot::Boundary(_) => true,
                },
            };
            if lands {
                return Ok(FirstWalk::Lands(left));
            }
            let below = slot.unwrap_or(self.stack.len());
            match below.checked_sub(1).map(|i| (i, &self.stack[i])) {
                Some((i, Slot::Frame(_))) => {
                    slot = Some(i);
                    left += 1;
                }
                Some((_, Slot::Boundary(Boundary::Entry { catches: false }))) | None => {
                    let code = match self.call_stop(exn, 0, true)? {
                        URC_NO_REASON => URC_END_OF_STACK,
                        _ => URC_FATAL_PHASE2_ERROR,
                    };
                    return Ok(FirstWalk::Returns(code));
                }
                // The interpreter's other boundaries decide when the frame is left.
                Some((_, Slot::Boundary(_))) => return Ok(FirstWalk::Lands(left)),
            }
        }
    }

    /// Whether unwinding the forced exception `exn` runs code in frame `f` (or
    /// terminates there), as the phase's unwinding step decides it.
    fn forced_lands(&self, f: &Frame<'m>, exn: u32) -> bool {
        if self.at_nothrow_call(f) {
            return false;
        }
        let func = f.func;
        match f.phase {
            Phase::Structured => f.ctrl.iter().rev().any(|c| match &c.state {
                state if runs_during_unwinding(state) => true,
                CtrlState::CleanupBody => matches!(
                    func.dfg.kind(c.op),
                    OpKind::CleanupScope { kind } if kind.runs_on_eh_exit()
                ),
                CtrlState::TryBody => match *func.dfg.kind(c.op) {
                    OpKind::Try { handlers } => func
                        .dfg
                        .handlers(handlers)
                        .iter()
                        .any(|key| self.key_handles(key, exn) || key_acts(key)),
                    _ => false,
                },
                // Leaving a handler ends its catch.
                CtrlState::Catch { .. } => true,
                CtrlState::ArrayCtor { index, .. } => {
                    *index > 0 && func.dfg.regions(c.op).len() > 1
                }
                CtrlState::ArrayDestroy { remaining, .. } => *remaining > 1,
                CtrlState::Plain | CtrlState::CleanupRun(_) | CtrlState::UnwindRegion { .. } => {
                    false
                }
            }),
            Phase::Flat => {
                f.open_cleanups.iter().any(|&e| e != exn)
                    || self.unwind_dest(f).is_some_and(|s| {
                        self.flat_code_runs(func, func.dfg.successor_block(s), exn)
                    })
            }
            Phase::Itanium => self.unwind_dest(f).is_some_and(|s| {
                self.landing_selection(f, func.dfg.successor_block(s), exn)
                    .is_some()
            }),
            Phase::Msvc => self.unwind_dest(f).is_some() || !f.pads.is_empty(),
        }
    }

    /// Whether the flat EH code from `start` runs anything for `exn` before it resumes
    /// unwinding out of the frame: code other than `cir.eh.initiate` and branches, or a
    /// dispatch key that takes it (as an Itanium landing pad without a matching clause
    /// or cleanup is passed by).
    fn flat_code_runs(&self, func: &'m ehir_core::Function, start: Block, exn: u32) -> bool {
        let mut block = start;
        for _ in 0..10_000 {
            let Some(term) = func.layout.last_op(block) else {
                return true;
            };
            let mut op = func.layout.first_op(block);
            while let Some(o) = op.filter(|&o| o != term) {
                if !matches!(func.dfg.kind(o), OpKind::EhInitiate { .. }) {
                    return true;
                }
                op = func.layout.next_op(o);
            }
            let succs = func.dfg.successors(term);
            block = match *func.dfg.kind(term) {
                OpKind::Br => match succs.first() {
                    Some(&s) => func.dfg.successor_block(s),
                    None => return true,
                },
                OpKind::EhDispatch { keys } => {
                    let mut next = None;
                    for (i, key) in func.dfg.handlers(keys).iter().enumerate() {
                        if self.key_handles(key, exn) || matches!(key, HandlerKey::Terminate) {
                            return true;
                        }
                        if matches!(key, HandlerKey::Unwind) {
                            next = succs.get(i).copied();
                            break;
                        }
                    }
                    match next {
                        Some(s) => func.dfg.successor_block(s),
                        // Nothing takes it: unwinding goes on out of the frame.
                        None => return false,
                    }
                }
                OpKind::Resume => return false,
                _ => return true,
            };
        }
        true
    }

    /// Calls the stop function of forced unwinding `exn` for the frame at `depth` (or,
    /// with `end_of_stack`, past the outermost frame); returns its reason code.
    fn call_stop(&mut self, exn: u32, depth: u32, end_of_stack: bool) -> Result<u64, Stop> {
        let Some((object, forced)) = self
            .rt
            .get(exn)
            .and_then(|e| e.forced.map(|f| (e.object, f)))
        else {
            return Err(self.error(format!("exn#{exn} is not a forced unwinding")));
        };
        if let Some(f) = self.rt.get_mut(exn).and_then(|e| e.forced.as_mut()) {
            f.stopped_at = f.stopped_at.min(depth);
        }
        let Some(stop) = self.symbol_of_pointer(forced.stop) else {
            return Err(self.error(format!(
                "_Unwind_ForcedUnwind with a stop function {} that is not a function",
                self.render_ptr(forced.stop)
            )));
        };
        let class = self
            .mem
            .read_uint(object, 8)
            .map_err(|e| self.mem_error(e))?;
        let mut actions = UA_FORCE_UNWIND | UA_CLEANUP_PHASE;
        if end_of_stack {
            actions |= UA_END_OF_STACK;
        }
        // (version, actions, exception_class, exception, context, stop_parameter)
        let args = [1, actions, class, object, 0, forced.parameter];
        match self.call_sync(Boundary::StopFunction, stop, &args)? {
            SyncEnd::Returned(code) => Ok(code.unwrap_or(0) & 0xffff_ffff),
            SyncEnd::Threw(e) => {
                self.terminate_for(e)?;
                Ok(URC_FATAL_PHASE2_ERROR)
            }
        }
    }

    /// Unwinding of forced exception `exn` reaches the running frame: the stop function
    /// is called for it, the first time. Past the first walk, a stop function that does
    /// not let the unwinding go on makes libgcc abort.
    pub(crate) fn forced_reach_frame(&mut self, exn: u32) -> Result<(), Stop> {
        let stopped_at = self
            .rt
            .get(exn)
            .and_then(|e| e.forced)
            .map_or(0, |f| f.stopped_at);
        if self.depth < stopped_at && self.call_stop(exn, self.depth, false)? != URC_NO_REASON {
            return Err(self.abort_now());
        }
        Ok(())
    }

    /// Forced exception `exn` is about to leave the outermost frame: the stop function is
    /// called at the end of the stack; if it returns, libgcc aborts.
    pub(crate) fn forced_end_of_stack(&mut self, exn: u32) -> Result<(), Stop> {
        self.call_stop(exn, 0, true)?;
        Err(self.abort_now())
    }

    /// Deletes forced exception `exn` (`_Unwind_DeleteException`): its
    /// `exception_cleanup(_URC_FOREIGN_EXCEPTION_CAUGHT, exception)` when it has one.
    pub(crate) fn delete_forced(&mut self, exn: u32) -> Result<(), Stop> {
        let Some(object) = self.rt.get(exn).map(|e| e.object) else {
            return Ok(());
        };
        if let Some(e) = self.rt.get_mut(exn) {
            e.destroyed = true;
        }
        self.delete_unwind_exception(object)
    }

    /// `_Unwind_DeleteException(exception)`: calls its `exception_cleanup` when set.
    pub(crate) fn delete_unwind_exception(&mut self, object: u64) -> Result<(), Stop> {
        let cleanup = self
            .mem
            .read_uint(crate::memory::offset_by(object, CLEANUP_FIELD), 8)
            .map_err(|e| self.mem_error(e))?;
        if cleanup == 0 {
            return Ok(());
        }
        let Some(function) = self.symbol_of_pointer(cleanup) else {
            return Err(self.error(format!(
                "the exception_cleanup {} of an _Unwind_Exception is not a function",
                self.render_ptr(cleanup)
            )));
        };
        let args = [URC_FOREIGN_EXCEPTION_CAUGHT, object];
        match self.call_sync(Boundary::Dtor, function, &args)? {
            SyncEnd::Returned(_) => Ok(()),
            SyncEnd::Threw(e) => self.terminate_for(e),
        }
    }
}

/// Whether a handler key acts on any exception that reaches it (an `unwind` handler
/// runs, a `terminate` boundary terminates).
fn key_acts(key: &HandlerKey) -> bool {
    matches!(key, HandlerKey::Unwind | HandlerKey::Terminate)
}
