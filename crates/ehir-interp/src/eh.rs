//! Exceptions at every phase, modelled on the Itanium ABI as libstdc++ implements it:
//!
//! - **Two-phase unwinding.** A throw first searches every interpreted frame, innermost
//!   first, for a frame where unwinding stops (phase 1) without running anything; only
//!   when one exists does it unwind (phase 2), running cleanups on the way. When none
//!   exists `std::terminate` is called before anything is unwound.
//! - **Where unwinding stops**, per phase: structured — a matching `cir.try` handler;
//!   flat — a matching key of the `cir.eh.dispatch` that the unwind destination leads
//!   to; Itanium — a matching `cir.eh.landingpad` clause; MSVC — a matching
//!   `cir.catchpad` of the `cir.catchswitch` chain. Everywhere a violated exception
//!   specification (`filter`) also stops the search, and so does a `terminate`
//!   (noexcept) boundary reached through cleanups only (g++'s rule, see the crate
//!   docs); phase 2 then unwinds the frames nearer the throw before `std::unexpected`
//!   or `std::terminate` is called. Calls that cannot throw are transparent.
//! - **Terminate boundaries.** An exception that would leave code running during
//!   unwinding (a structured EH cleanup or `unwind` region, a flat
//!   `cir.begin_cleanup`..`cir.end_cleanup` range of another exception, an MSVC
//!   cleanup funclet) or a destructor the runtime calls terminates.
//! - **Landing.** Flat and MSVC frames are entered at the unwind destination whenever
//!   there is one (the code there decides); an Itanium frame only when a clause
//!   matches or the pad is a `cleanup` pad, with the selector libstdc++'s personality
//!   computes (type id of the matching clause, 0 for cleanup, negative for a filter).

use crate::cxx_types::{self, Adjust, BasePath, CatchRules, PathStep};
use crate::machine::{Boundary, Frame, Machine, Pad, Slot, Stop, SyncEnd};
use crate::memory::{self, AllocKind};
use crate::runtime::EndCatch;
use crate::trace::Event;
use ehir_core::abi::type_names;
use ehir_core::{
    Attr, AttrData, Block, Extra, ExtraData, HandlerKey, LandingPadClause, Op, OpKind, Phase,
    Successor, Symbol, Type, Value,
};
use std::collections::{HashSet, VecDeque};

/// The exit status of a run that called `std::terminate` or `abort`.
pub const EXIT_ABORT: i32 = 134;

/// Whether a dispatch has keys that test the exception's type (catch, catch_all,
/// filter).
fn dispatch_catches(func: &ehir_core::Function, keys: Extra) -> bool {
    func.dfg.handlers(keys).iter().any(|k| {
        matches!(
            k,
            HandlerKey::Catch(_) | HandlerKey::CatchAll | HandlerKey::Filter(_)
        )
    })
}

/// A by-value catch parameter the runtime builds when its handler is chosen.
struct CatchObject {
    /// Its address.
    address: u64,
    /// Its class.
    class: ehir_core::Type,
    /// The handler's type (Itanium mangling).
    handler: String,
    /// The copy constructor (`None`: the copy is bitwise).
    ctor: Option<Symbol>,
}

/// What an Itanium landing pad does with an exception.
pub(crate) enum Landing {
    /// A catch clause matched (its typeinfo; `None`: catch-all).
    Catch(Adjust, Option<Symbol>),
    /// A filter clause is violated (the allowed types).
    Filter(Vec<String>),
    /// Nothing matched but the pad has cleanups.
    Cleanup,
}

impl<'m> Machine<'m> {
    // ---- types and handlers ---------------------------------------------------------

    /// The mangled type a typeinfo attribute (`#cir.global_view<@_ZTIi>`) names.
    pub(crate) fn attr_type(&self, attr: Attr) -> Option<String> {
        match self.module.ctx.attrs.get(attr) {
            AttrData::GlobalView { symbol, .. } => Some(cxx_types::type_of_typeinfo_symbol(
                self.module.ctx.name(*symbol),
            )),
            _ => None,
        }
    }

    /// The mangled types of a `filter [...]` list attribute.
    pub(crate) fn attr_type_list(&self, attr: Attr) -> Vec<String> {
        match self.module.ctx.attrs.get(attr) {
            AttrData::List(items) => items.iter().filter_map(|&a| self.attr_type(a)).collect(),
            _ => self.attr_type(attr).into_iter().collect(),
        }
    }

    fn exn_type(&self, exn: u32) -> String {
        self.rt.get(exn).map(|e| e.ty.clone()).unwrap_or_default()
    }

    fn exn_display(&self, exn: u32) -> String {
        cxx_types::display_mangled(&self.exn_type(exn))
    }

    /// Whether a handler for `catch_type` catches `exn`, and how its pointer is made:
    /// by the Microsoft runtime's rules in the MSVC phase, by libstdc++'s elsewhere. A
    /// match where the two differ is remembered (`RunOutcome::abi_dependent_catch`).
    pub(crate) fn catch_adjust(&self, catch_type: &str, exn: u32) -> Option<Adjust> {
        let ty = self.rt.get(exn)?.ty.as_str();
        let rules = if self.cur.phase == Phase::Msvc {
            CatchRules::Msvc
        } else {
            CatchRules::Itanium
        };
        let adjust = self.hierarchy.catches(catch_type, ty, rules);
        if rules == CatchRules::Itanium
            && adjust.is_some()
            && self
                .hierarchy
                .catches(catch_type, ty, CatchRules::Msvc)
                .is_none()
        {
            self.abi_dependent_catch.set(true);
        }
        adjust
    }

    /// Whether handler key `key` handles exception `exn` on its own: a matching typed
    /// catch, a catch-all, or an exception specification `exn` violates. (`terminate`
    /// and `unwind` keys depend on where the search is; the searches decide them.)
    pub(crate) fn key_handles(&self, key: &HandlerKey, exn: u32) -> bool {
        match key {
            HandlerKey::Catch(attr) => self
                .attr_type(*attr)
                .is_some_and(|ty| self.catch_adjust(&ty, exn).is_some()),
            HandlerKey::CatchAll => true,
            HandlerKey::Filter(list) => !self.spec_allows(&self.attr_type_list(*list), exn),
            HandlerKey::Terminate | HandlerKey::Unwind => false,
        }
    }

    /// Whether an exception specification lists a type that catches `exn`.
    /// Every check is remembered: the run then depends on the specification being
    /// enforced (`RunOutcome::met_specification`).
    /// A forced unwinding violates only an empty specification (libstdc++'s rule for
    /// foreign and forced exceptions).
    pub(crate) fn spec_allows(&self, allowed: &[String], exn: u32) -> bool {
        self.met_specification.set(true);
        if self.rt.is_forced(exn) {
            return !allowed.is_empty();
        }
        allowed.iter().any(|t| self.catch_adjust(t, exn).is_some())
    }

    /// Records the handler selected for `exn` (its catch type, `None` for catch-all) and
    /// the pointer it receives (libstdc++'s `adjustedPtr`).
    pub(crate) fn select_handler(
        &mut self,
        exn: u32,
        adjust: Adjust,
        handler: Option<String>,
    ) -> Result<u64, Stop> {
        let Some(object) = self.rt.get(exn).map(|e| e.object) else {
            return Err(self.error(format!("unknown exception exn#{exn}")));
        };
        let adjusted = match adjust {
            // A forced unwinding has no object to give a handler.
            _ if self.rt.is_forced(exn) => 0,
            Adjust::Object(path) => self.follow_base_path(object, &path)?,
            Adjust::PointerValue(path) => {
                let p = self
                    .mem
                    .read_uint(object, 8)
                    .map_err(|e| self.mem_error(e))?;
                if p == 0 {
                    0
                } else {
                    self.follow_base_path(p, &path)?
                }
            }
        };
        if let Some(e) = self.rt.get_mut(exn) {
            e.adjusted = adjusted;
            e.handler = handler;
        }
        Ok(adjusted)
    }

    /// The address of the base subobject `path` leads to from the object at `object`: a
    /// virtual base's offset is read from the vtable of the subobject that names it (on
    /// the Microsoft ABI from its vbtable).
    pub(crate) fn follow_base_path(&self, object: u64, path: &BasePath) -> Result<u64, Stop> {
        let mut at = object;
        for step in &path.0 {
            at = match *step {
                PathStep::Offset(offset) => memory::offset_by(at, offset),
                PathStep::Virtual(slot) => {
                    let vptr = self.mem.read_uint(at, 8).map_err(|e| self.mem_error(e))?;
                    let offset = self
                        .mem
                        .read_uint(memory::offset_by(vptr, slot), 8)
                        .map_err(|e| self.mem_error(e))?;
                    memory::offset_by(at, offset as i64)
                }
                PathStep::VirtualThroughVbtable {
                    vbptr_offset,
                    entry,
                } => {
                    let vbptr = memory::offset_by(at, vbptr_offset);
                    let vbtable = self
                        .mem
                        .read_uint(vbptr, 8)
                        .map_err(|e| self.mem_error(e))?;
                    let offset = self
                        .mem
                        .read_uint(memory::offset_by(vbtable, entry), 4)
                        .map_err(|e| self.mem_error(e))?;
                    memory::offset_by(vbptr, i64::from(offset as u32 as i32))
                }
            };
        }
        Ok(at)
    }

    /// The unwind destination of the op a frame stands at (`cir.try_call`'s second
    /// successor, the successor of a flat `cir.throw`).
    pub(crate) fn unwind_dest(&self, frame: &Frame<'m>) -> Option<Successor> {
        let func = frame.func;
        match func.dfg.kind(frame.pc) {
            OpKind::TryCall { .. } | OpKind::TryThrow => {
                func.dfg.successors(frame.pc).get(1).copied()
            }
            OpKind::Throw { .. } => func.dfg.successors(frame.pc).first().copied(),
            _ => None,
        }
    }

    // ---- exception objects ------------------------------------------------------------

    /// `cir.alloc.exception` / `__cxa_allocate_exception`: storage for a new exception.
    pub(crate) fn allocate_exception(&mut self, size: u64) -> Result<u64, Stop> {
        let id = self.rt.count() + 1;
        let p = self
            .mem
            .allocate(size.max(1), AllocKind::Exception(id), self.frame_bytes)
            .map_err(|e| self.mem_error(e))?;
        self.rt.new_exception(p);
        Ok(p)
    }

    /// `cir.free.exception` / `__cxa_free_exception`: releases the storage of an exception
    /// that was allocated and never thrown (its initialization threw).
    pub(crate) fn free_exception(&mut self, p: u64) -> Result<(), Stop> {
        let exn = self.exception_of_pointer(p)?;
        if self.rt.get(exn).is_some_and(|e| e.thrown) {
            return Err(self.error(format!(
                "cir.free.exception of exception #{exn}, which was thrown"
            )));
        }
        if let Some(e) = self.rt.get_mut(exn) {
            e.destroyed = true;
        }
        self.mem.release(p).map_err(|e| self.mem_error(e))
    }

    /// The exception whose object a pointer points to.
    pub(crate) fn exception_of_pointer(&self, p: u64) -> Result<u32, Stop> {
        self.rt
            .by_object(p)
            .ok_or_else(|| self.error(format!("{} is not an exception object", self.render_ptr(p))))
    }

    /// The exception an EH token value stands for (`None`: the landed one).
    pub(crate) fn token_exception(&self, token: Option<Value>) -> Result<u32, Stop> {
        let exn = match token {
            Some(v) => self.get(v) as u32,
            None => self
                .cur
                .landed
                .ok_or_else(|| self.error("no exception in flight".into()))?,
        };
        if self.rt.get(exn).is_none() {
            return Err(self.error("an EH token that stands for no exception".into()));
        }
        Ok(exn)
    }

    /// The value of an exception object as traces show it (empty for classes).
    pub(crate) fn render_exception_value(&self, exn: u32) -> String {
        let Some(e) = self.rt.get(exn) else {
            return String::new();
        };
        let read = |size| self.mem.read_uint(e.object, size).ok();
        let ty = e.ty.as_str();
        let v = match ty {
            "i" => read(4).map(|v| (v as u32 as i32).to_string()),
            "j" => read(4).map(|v| (v as u32).to_string()),
            "s" => read(2).map(|v| (v as u16 as i16).to_string()),
            "t" => read(2).map(|v| (v as u16).to_string()),
            "a" | "c" => read(1).map(|v| (v as u8 as i8).to_string()),
            "h" => read(1).map(|v| (v as u8).to_string()),
            "l" | "x" => read(8).map(|v| (v as i64).to_string()),
            "m" | "y" => read(8).map(|v| v.to_string()),
            "b" => read(1).map(|v| (v != 0).to_string()),
            "f" => read(4).map(|v| format!("{:?}", f32::from_bits(v as u32))),
            "d" => read(8).map(|v| format!("{:?}", f64::from_bits(v))),
            "PKc" | "Pc" => read(8).map(|p| match self.mem.read_c_string(p, 4096) {
                Ok(s) => format!("{:?}", String::from_utf8_lossy(&s)),
                Err(_) => self.render_ptr(p),
            }),
            t if t.starts_with('P') => read(8).map(|p| self.render_ptr(p)),
            _ => None,
        };
        v.unwrap_or_default()
    }

    /// Marks an exception thrown and records the event.
    pub(crate) fn announce_throw(&mut self, exn: u32, ty: String, dtor: Option<Symbol>) {
        if let Some(e) = self.rt.get_mut(exn) {
            e.ty = ty;
            e.dtor = dtor;
            e.thrown = true;
        }
        let value = self.render_exception_value(exn);
        if let Some(e) = self.rt.get_mut(exn) {
            e.value = value.clone();
        }
        self.rt.uncaught += 1;
        if self.config.record_trace {
            self.record(Event::Throw {
                id: exn,
                ty: self.exn_display(exn),
                value,
            });
        }
    }

    /// `__cxa_begin_catch`, with its trace event. A forced unwinding caught while
    /// another exception is caught terminates (libstdc++'s rule for foreign exceptions).
    pub(crate) fn begin_catch(&mut self, exn: u32) -> Result<u64, Stop> {
        if self.rt.is_forced(exn) && self.rt.current().is_some_and(|c| c != exn) {
            self.terminate()?;
        }
        let adjusted = self.rt.begin_catch(exn);
        if self.config.record_trace {
            let handler = match self.rt.get(exn).and_then(|e| e.handler.as_deref()) {
                Some(h) => cxx_types::display_mangled(h),
                None => "...".to_string(),
            };
            self.record(Event::Catch {
                id: exn,
                ty: self.exn_display(exn),
                handler,
            });
        }
        Ok(adjusted)
    }

    /// The value a catch handler's parameter (`cir.catch_param`, the pointer result of
    /// `cir.begin_catch`) of CIR type `param` gets for exception `exn`: the pointer the
    /// handler received (`adjusted`), except that a reference to a caught pointer
    /// (`catch (int *&)` as the Clang front end generates it for the Microsoft target:
    /// one more pointer level than the caught type,
    /// [`type_names::catch_param_is_reference`]) binds to the exception object itself,
    /// as Microsoft's runtime binds it (the reference adjective).
    pub(crate) fn catch_param_value(&self, exn: u32, adjusted: u64, param: Type) -> u64 {
        let Some(e) = self.rt.get(exn) else {
            return adjusted;
        };
        match &e.handler {
            Some(handler)
                if cxx_types::parse(&e.ty).is_pointer()
                    && type_names::catch_param_is_reference(
                        &self.module.ctx,
                        &format!("_ZTI{handler}"),
                        param,
                    ) =>
            {
                e.object
            }
            _ => adjusted,
        }
    }

    /// `__cxa_end_catch`: may destroy the exception (running its destructor).
    pub(crate) fn end_catch(&mut self) -> Result<(), Stop> {
        match self.rt.end_catch() {
            EndCatch::Keep => Ok(()),
            EndCatch::Destroy(id) => self.destroy_exception(id),
        }
    }

    fn destroy_exception(&mut self, id: u32) -> Result<(), Stop> {
        let Some(e) = self.rt.get(id) else {
            return Ok(());
        };
        if e.forced.is_some() {
            return self.delete_forced(id);
        }
        let (object, dtor) = (e.object, e.dtor);
        if self.config.record_trace {
            self.record(Event::Destroy {
                id,
                ty: self.exn_display(id),
            });
        }
        if let Some(dtor) = dtor {
            match self.call_sync(Boundary::Dtor, dtor, &[object])? {
                SyncEnd::Returned(_) => {}
                SyncEnd::Threw(e) => return self.terminate_for(e),
            }
        }
        if let Some(e) = self.rt.get_mut(id) {
            e.destroyed = true;
        }
        let _ = self.mem.release(object);
        Ok(())
    }

    /// Throws a new `std::bad_exception` (from `std::unexpected`).
    fn throw_bad_exception(&mut self) -> Result<u32, Stop> {
        self.throw_standard_exception("St13bad_exception")
    }

    // ---- ops ----------------------------------------------------------------------------

    /// `cir.throw`: throws a new exception or (without operands) rethrows.
    pub(crate) fn exec_throw(
        &mut self,
        op: Op,
        type_info: Option<Symbol>,
        dtor: Option<Symbol>,
    ) -> Result<(), Stop> {
        let func = self.cur.func;
        let Some(&obj) = func.dfg.operands(op).first() else {
            return self.rethrow();
        };
        let Some(ti) = type_info else {
            return Err(self.error("cir.throw of an object without a typeinfo".into()));
        };
        let p = self.get(obj);
        let exn = match self.rt.by_object(p) {
            Some(e) if self.rt.get(e).is_some_and(|x| !x.thrown) => e,
            _ => {
                // Not from `cir.alloc.exception`: copy the object into exception storage.
                let size = self.pointee(obj).map(|t| self.layouts.size(t)).unwrap_or(8);
                let q = self.allocate_exception(size)?;
                self.mem.copy(q, p, size).map_err(|e| self.mem_error(e))?;
                self.exception_of_pointer(q)?
            }
        };
        let ty = cxx_types::type_of_typeinfo_symbol(self.module.ctx.name(ti));
        self.announce_throw(exn, ty, dtor);
        self.raise(exn)
    }

    /// `throw;` / `__cxa_rethrow`.
    pub(crate) fn rethrow(&mut self) -> Result<(), Stop> {
        match self.rt.rethrow() {
            None => self.terminate(),
            Some(exn) => {
                if self.config.record_trace {
                    self.record(Event::Rethrow {
                        id: exn,
                        ty: self.exn_display(exn),
                    });
                }
                self.raise(exn)
            }
        }
    }

    /// `cir.resume`.
    pub(crate) fn exec_resume(&mut self, op: Op) -> Result<(), Stop> {
        if self.cur.phase == Phase::Structured {
            return self.resume_structured();
        }
        let token = self.cur.func.dfg.operands(op).first().copied();
        let exn = self.token_exception(token)?;
        self.cur.open_cleanups.retain(|&e| e != exn);
        self.continue_unwinding_out(exn)
    }

    /// `cir.eh.dispatch`: the first matching key wins.
    pub(crate) fn exec_dispatch(&mut self, op: Op, keys: Extra) -> Result<(), Stop> {
        let func = self.cur.func;
        let token = func.dfg.operands(op).first().copied();
        let exn = self.token_exception(token)?;
        let succs = func.dfg.successors(op);
        let handlers = func.dfg.handlers(keys).to_vec();
        let catching = dispatch_catches(func, keys);
        if catching {
            // Whatever happens next in this frame comes after a try with catching
            // handlers (g++'s noexcept rule).
            self.cur.passed_catch = Some(exn);
        }
        for (i, key) in handlers.iter().enumerate() {
            let Some(&succ) = succs.get(i) else { break };
            match key {
                HandlerKey::Catch(attr) => {
                    let Some(ty) = self.attr_type(*attr) else {
                        continue;
                    };
                    if let Some(adjust) = self.catch_adjust(&ty, exn) {
                        self.select_handler(exn, adjust, Some(ty))?;
                        return self.jump(succ, Some(u64::from(exn)));
                    }
                }
                HandlerKey::CatchAll => {
                    self.select_handler(exn, Adjust::object(), None)?;
                    return self.jump(succ, Some(u64::from(exn)));
                }
                HandlerKey::Unwind => {
                    if self.flat_doomed(func.dfg.successor_block(succ)) {
                        return self.terminate_at_boundary(exn);
                    }
                    return self.jump(succ, Some(u64::from(exn)));
                }
                HandlerKey::Filter(list) => {
                    let allowed = self.attr_type_list(*list);
                    if !self.spec_allows(&allowed, exn) {
                        return self.call_unexpected(exn, allowed);
                    }
                }
                HandlerKey::Terminate => return self.terminate_at_boundary(exn),
            }
        }
        self.continue_unwinding_out(exn)
    }

    /// `cir.catchswitch`: dispatches to the first matching `cir.catchpad`.
    pub(crate) fn exec_catchswitch(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        let Some(exn) = self.cur.landed else {
            return Err(self.error("cir.catchswitch reached without unwinding".into()));
        };
        if let Some(&r) = func.dfg.results(op).first() {
            self.set(r, u64::from(exn));
        }
        let (handlers, unwind) = func.dfg.catchswitch_edges(op);
        for &s in handlers {
            let block = func.dfg.successor_block(s);
            let Some(pad) = func.layout.first_op(block) else {
                continue;
            };
            let OpKind::CatchPad {
                type_desc,
                adjectives,
                ..
            } = *func.dfg.kind(pad)
            else {
                return Err(self.error("a catchswitch handler must start with cir.catchpad".into()));
            };
            let (adjust, handler) = match type_desc.expand() {
                None => (Some(Adjust::object()), None),
                Some(desc) => {
                    let ty = cxx_types::msvc_handler_type(self.module.ctx.name(desc), adjectives);
                    (self.catch_adjust(&ty, exn), Some(ty))
                }
            };
            if let Some(adjust) = adjust {
                self.select_handler(exn, adjust, handler)?;
                return self.jump(s, Some(u64::from(exn)));
            }
        }
        match unwind {
            None => self.continue_unwinding_out(exn),
            Some(s) => {
                self.leave_funclets_for(func.dfg.successor_block(s))?;
                self.jump(s, Some(u64::from(exn)))
            }
        }
    }

    /// `cir.catchpad`: begins the catch; stores the exception in the catch object slot.
    pub(crate) fn exec_catchpad(
        &mut self,
        op: Op,
        _type_desc: Option<Symbol>,
        adjectives: u32,
        has_slot: bool,
    ) -> Result<(), Stop> {
        let func = self.cur.func;
        let operands = func.dfg.operands(op);
        let exn = self.token_exception(operands.first().copied())?;
        let adjusted = self.begin_catch(exn)?;
        if has_slot && let Some(&slot) = operands.get(1) {
            let dst = self.get(slot);
            if dst != 0 {
                let thrown_is_pointer = cxx_types::parse(&self.exn_type(exn)).is_pointer();
                let class_slot = self.pointee(slot).is_some_and(|t| {
                    matches!(self.module.ctx.types.get(t), ehir_core::TypeData::Record(_))
                });
                if adjectives & type_names::ADJECTIVE_REFERENCE != 0 && thrown_is_pointer {
                    // A reference to the thrown pointer (`catch (int *&)`): the slot gets
                    // the exception object's address.
                    let object = self.rt.get(exn).map_or(adjusted, |e| e.object);
                    self.mem
                        .write_uint(dst, 8, object)
                        .map_err(|e| self.mem_error(e))?;
                } else if adjectives & type_names::ADJECTIVE_REFERENCE != 0 || thrown_is_pointer {
                    // Catch by reference (or of a pointer): the slot gets the pointer.
                    self.mem
                        .write_uint(dst, 8, adjusted)
                        .map_err(|e| self.mem_error(e))?;
                } else if class_slot {
                    // A class by value: the runtime built it before unwinding
                    // (`build_catch_object`).
                } else {
                    let size = self
                        .pointee(slot)
                        .map(|t| self.layouts.size(t))
                        .unwrap_or(0);
                    self.mem
                        .copy(dst, adjusted, size)
                        .map_err(|e| self.mem_error(e))?;
                }
            }
        }
        self.cur.pads.push(Pad::Catch { exn });
        if let Some(&r) = func.dfg.results(op).first() {
            self.set(r, u64::from(exn));
        }
        self.next(op)
    }

    /// `cir.copy_catch_param`: the by-value catch parameter becomes a copy of the
    /// exception object, made by its copy constructor (an exception from it terminates)
    /// or bitwise.
    pub(crate) fn exec_copy_catch_param(
        &mut self,
        op: Op,
        ctor: Option<Symbol>,
    ) -> Result<(), Stop> {
        let operands = self.cur.func.dfg.operands(op);
        let (Some(&exn), Some(&dest)) = (operands.first(), operands.get(1)) else {
            return Err(self.error("cir.copy_catch_param without its operands".into()));
        };
        let (source, target) = (self.get(exn), self.get(dest));
        if let Some(i) = self.built_catch_objects.iter().rposition(|&a| a == target) {
            // Built when the handler was chosen (`build_catch_object`).
            self.built_catch_objects.remove(i);
            return self.next(op);
        }
        match ctor {
            Some(ctor) => match self.call_sync(Boundary::Dtor, ctor, &[target, source])? {
                SyncEnd::Returned(_) => {}
                SyncEnd::Threw(e) => return self.terminate_for(e),
            },
            None => {
                let size = self.pointee(dest).map_or(0, |t| self.layouts.size(t));
                self.mem
                    .copy(target, source, size)
                    .map_err(|e| self.mem_error(e))?;
            }
        }
        self.next(op)
    }

    /// Upstream's `cir.init_catch_param KIND %exn to %dest`, `%exn` being the pointer
    /// `cir.begin_catch` yields (the adjusted pointer, as `__cxa_begin_catch` returns it):
    /// `reference` and `pointer` store that pointer at `%dest`; `scalar` and
    /// `trivial_copy` copy the caught object there; `non_trivial_copy` and
    /// `reference_to_pointer` do nothing (their `cir.construct_catch_param` built the
    /// parameter). Other kinds are reported as not supported yet.
    pub(crate) fn exec_init_catch_param(&mut self, op: Op, kind: Symbol) -> Result<(), Stop> {
        let operands = self.cur.func.dfg.operands(op);
        let (Some(&exn), Some(&dest)) = (operands.first(), operands.get(1)) else {
            return Err(self.error("cir.init_catch_param without its operands".into()));
        };
        let (source, target) = (self.get(exn), self.get(dest));
        let kind_name = self.module.ctx.symbols.get(kind).unwrap_or("?");
        match kind_name {
            "reference" | "pointer" => {
                let layout = self.layouts.get(self.cur.func.dfg.value_type(exn));
                self.store(target, source, layout.size, layout.scalar)?;
            }
            "scalar" | "trivial_copy" => {
                let size = self.pointee(dest).map_or(0, |t| self.layouts.size(t));
                self.mem
                    .copy(target, source, size)
                    .map_err(|e| self.mem_error(e))?;
            }
            "non_trivial_copy" | "reference_to_pointer" => {}
            other => {
                return Err(self.error(format!(
                    "not supported yet: 'cir.init_catch_param' of kind '{other}'"
                )));
            }
        }
        self.next(op)
    }

    fn pop_pad(&mut self, pad: Pad) {
        if let Some(i) = self.cur.pads.iter().rposition(|&p| p == pad) {
            self.cur.pads.truncate(i);
        }
    }

    /// `cir.catchret`: ends the catch and continues at the target.
    pub(crate) fn exec_catchret(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        let exn = self.token_exception(func.dfg.operands(op).first().copied())?;
        self.pop_pad(Pad::Catch { exn });
        let Some(&s) = func.dfg.successors(op).first() else {
            return Err(self.error("cir.catchret without a target".into()));
        };
        self.jump(s, None)?;
        self.end_catch()
    }

    /// `cir.cleanupret`: ends the cleanup funclet and keeps unwinding.
    pub(crate) fn exec_cleanupret(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        let exn = self.token_exception(func.dfg.operands(op).first().copied())?;
        self.pop_pad(Pad::Cleanup { exn });
        match func.dfg.successors(op).first() {
            Some(&s) => {
                self.leave_funclets_for(func.dfg.successor_block(s))?;
                self.cur.landed = Some(exn);
                self.jump(s, Some(u64::from(exn)))
            }
            None => self.continue_unwinding_out(exn),
        }
    }

    // ---- raising and unwinding -----------------------------------------------------------

    /// Throws `exn` from the running op: phase 1 search, then phase 2 unwinding, or
    /// `std::terminate` without unwinding when nothing would stop it.
    /// A forced unwinding (rethrown from `catch (...)`) has no search phase.
    pub(crate) fn raise(&mut self, exn: u32) -> Result<(), Stop> {
        if self.rt.is_forced(exn) {
            return self.unwind(exn);
        }
        if self.search(exn) {
            self.build_catch_object(exn)?;
            self.unwind(exn)
        } else {
            // libstdc++'s __cxa_throw: _Unwind_RaiseException returned, so
            // __cxa_begin_catch + std::terminate.
            self.terminate_for(exn)
        }
    }

    /// When unwinding `exn` stops at a handler whose parameter is built by value from the
    /// exception object (a `cir.copy_catch_param` after its `cir.catch_param` or
    /// `cir.begin_catch`, or an MSVC `cir.catchpad` with a class object slot), the
    /// runtime builds it now, before anything is unwound (the try block's objects are
    /// destroyed after it), as the Microsoft runtime does: with the copy constructor the
    /// op names, or at the MSVC phase the one the thrower's CatchableType names
    /// ([`type_names::copy_constructor`]), bitwise without one. An exception from the
    /// copy aborts, as Microsoft's runtime does (vcruntime's `BuildCatchObjectInternal`
    /// calls `abort()` from an `__except` around the copy, without the terminate handler;
    /// wine's msvcrt lets a sibling handler catch it instead).
    fn build_catch_object(&mut self, exn: u32) -> Result<(), Stop> {
        let Some(target) = self.catch_object(exn) else {
            return Ok(());
        };
        let (Some(Adjust::Object(path)), Some(object)) = (
            self.catch_adjust(&target.handler, exn),
            self.rt.get(exn).map(|e| e.object),
        ) else {
            return Ok(());
        };
        let source = self.follow_base_path(object, &path)?;
        self.built_catch_objects.push(target.address);
        match target.ctor {
            Some(ctor) => match self.call_sync(Boundary::Dtor, ctor, &[target.address, source])? {
                SyncEnd::Returned(_) => Ok(()),
                SyncEnd::Threw(_) => Err(self.abort_now()),
            },
            None => {
                let size = self.layouts.size(target.class);
                self.mem
                    .copy(target.address, source, size)
                    .map_err(|e| self.mem_error(e))
            }
        }
    }

    /// The by-value catch parameter of the handler where unwinding `exn` stops, if it
    /// has one (see [`Machine::build_catch_object`]).
    fn catch_object(&self, exn: u32) -> Option<CatchObject> {
        let mut frames = vec![&self.cur];
        for slot in self.stack.iter().rev() {
            match slot {
                Slot::Frame(f) => frames.push(f),
                Slot::Boundary(_) => break,
            }
        }
        let f = frames
            .into_iter()
            .find(|f| !self.at_nothrow_call(f) && self.search_frame(f, exn))?;
        let func = f.func;
        // The handler's first op, and its type.
        let (begin, handler) = match f.phase {
            Phase::Structured => self.structured_catch(&f.ctrl, func, exn)?,
            Phase::Flat => {
                let start = func.dfg.successor_block(self.unwind_dest(f)?);
                self.flat_catch(func, start, exn)?
            }
            Phase::Msvc => {
                let start = func.dfg.successor_block(self.unwind_dest(f)?);
                let pad = self.msvc_matching_pad(f, start, exn)?;
                let OpKind::CatchPad {
                    type_desc,
                    adjectives,
                    has_slot,
                } = *func.dfg.kind(pad)
                else {
                    return None;
                };
                let descriptor = type_desc.expand()?;
                if !has_slot || adjectives & type_names::ADJECTIVE_REFERENCE != 0 {
                    return None;
                }
                let slot = *func.dfg.operands(pad).get(1)?;
                let class = self.record_pointee(func, slot)?;
                let handler =
                    cxx_types::msvc_handler_type(self.module.ctx.name(descriptor), adjectives);
                let ctor = type_names::copy_constructor(self.module, &format!("_ZTI{handler}"));
                return Some(CatchObject {
                    address: f.regs[ehir_core::EntityRef::index(slot)],
                    class,
                    handler,
                    ctor,
                });
            }
            Phase::Itanium => return None,
        };
        let copy = func.layout.next_op(begin)?;
        let OpKind::CopyCatchParam { ctor } = *func.dfg.kind(copy) else {
            return None;
        };
        let dest = *func.dfg.operands(copy).get(1)?;
        Some(CatchObject {
            address: f.regs[ehir_core::EntityRef::index(dest)],
            class: self.record_pointee(func, dest)?,
            handler,
            ctor: ctor.expand(),
        })
    }

    /// The record a pointer value points to.
    fn record_pointee(&self, func: &ehir_core::Function, v: Value) -> Option<ehir_core::Type> {
        let types = &self.module.ctx.types;
        let class = types.pointee(func.dfg.value_type(v))?;
        matches!(types.get(class), ehir_core::TypeData::Record(_)).then_some(class)
    }

    /// Structured: the first op (`cir.catch_param`) of the typed catch handler where
    /// unwinding `exn` stops in a frame at `ctrl`, and the handler's type.
    fn structured_catch(
        &self,
        ctrl: &[crate::machine::Ctrl],
        func: &ehir_core::Function,
        exn: u32,
    ) -> Option<(Op, String)> {
        for c in ctrl.iter().rev() {
            if !matches!(c.state, crate::machine::CtrlState::TryBody) {
                continue;
            }
            let OpKind::Try { handlers } = *func.dfg.kind(c.op) else {
                continue;
            };
            for (i, key) in func.dfg.handlers(handlers).iter().enumerate() {
                if self.key_handles(key, exn) {
                    let HandlerKey::Catch(attr) = key else {
                        return None;
                    };
                    let region = *func.dfg.regions(c.op).get(i + 1)?;
                    let entry = func.layout.entry_block(region)?;
                    return Some((func.layout.first_op(entry)?, self.attr_type(*attr)?));
                }
                if matches!(key, HandlerKey::Terminate) {
                    return None;
                }
            }
        }
        None
    }

    /// Flat: the first op (`cir.begin_catch`) of the block of the typed catch key where
    /// the EH code from `start` catches `exn`, and the key's type.
    fn flat_catch(
        &self,
        func: &ehir_core::Function,
        start: Block,
        exn: u32,
    ) -> Option<(Op, String)> {
        let mut block = start;
        for _ in 0..10_000 {
            let term = func.layout.last_op(block)?;
            let succs = func.dfg.successors(term);
            match *func.dfg.kind(term) {
                OpKind::EhDispatch { keys } => {
                    let mut next = None;
                    for (i, key) in func.dfg.handlers(keys).iter().enumerate() {
                        if self.key_handles(key, exn) {
                            let HandlerKey::Catch(attr) = key else {
                                return None;
                            };
                            let handler = func.dfg.successor_block(*succs.get(i)?);
                            return Some((func.layout.first_op(handler)?, self.attr_type(*attr)?));
                        }
                        match key {
                            HandlerKey::Unwind => next = succs.get(i).copied(),
                            HandlerKey::Terminate => return None,
                            _ => {}
                        }
                    }
                    block = func.dfg.successor_block(next?);
                }
                OpKind::Br => block = func.dfg.successor_block(*succs.first()?),
                OpKind::TryCall { .. } => block = func.dfg.successor_block(*succs.first()?),
                _ => return None,
            }
        }
        None
    }

    /// Whether a frame stands at a call that cannot throw (`nothrow` on the call, or a
    /// callee declared `nothrow`). Lowered code has no landing pad there, so an
    /// exception coming out of such a call (which C++ forbids) passes the frame by: its
    /// handlers are not searched and its cleanups do not run, at every phase.
    pub(crate) fn at_nothrow_call(&self, f: &Frame<'m>) -> bool {
        match *f.func.dfg.kind(f.pc) {
            OpKind::Call { callee, flags, .. } => {
                flags.nothrow
                    || callee
                        .expand()
                        .and_then(|c| self.module.function_by_name(c))
                        .is_some_and(|fid| self.module.functions[fid].nothrow)
            }
            _ => false,
        }
    }

    /// Phase 1: whether any frame (or boundary) would stop unwinding `exn`.
    fn search(&self, exn: u32) -> bool {
        if !self.at_nothrow_call(&self.cur) && self.search_frame(&self.cur, exn) {
            return true;
        }
        for slot in self.stack.iter().rev() {
            match slot {
                Slot::Frame(f) => {
                    if !self.at_nothrow_call(f) && self.search_frame(f, exn) {
                        return true;
                    }
                }
                Slot::Boundary(Boundary::Entry { catches }) => return *catches,
                Slot::Boundary(_) => return true,
            }
        }
        false
    }

    /// Whether unwinding `exn` stops in this frame at its current point.
    fn search_frame(&self, f: &Frame<'m>, exn: u32) -> bool {
        let func = f.func;
        match f.phase {
            Phase::Structured => self.search_structured(&f.ctrl, func, exn),
            Phase::Flat => {
                if let Some(s) = self.unwind_dest(f)
                    && self.flat_search(f, func.dfg.successor_block(s), exn)
                {
                    return true;
                }
                f.open_cleanups.iter().any(|&e| e != exn)
            }
            Phase::Itanium => match self.unwind_dest(f) {
                Some(s) => {
                    let block = func.dfg.successor_block(s);
                    matches!(
                        self.landing_selection(f, block, exn),
                        Some(Landing::Catch(..) | Landing::Filter(_))
                    )
                }
                None => false,
            },
            Phase::Msvc => {
                if let Some(s) = self.unwind_dest(f)
                    && self.msvc_search(f, func.dfg.successor_block(s), exn)
                {
                    return true;
                }
                f.pads
                    .iter()
                    .any(|p| matches!(p, Pad::Cleanup { exn: e } if *e != exn))
            }
        }
    }

    /// Phase 1 in a flat frame: follows the code from the unwind destination to the
    /// `cir.eh.dispatch` it reaches (through cleanup blocks and `unwind` keys). A
    /// `terminate` key stops the search only when no dispatch with catching keys came
    /// before it (g++'s noexcept rule, as in the structured phase).
    fn flat_search(&self, f: &Frame<'m>, start: Block, exn: u32) -> bool {
        let func = f.func;
        let mut queue = VecDeque::from([(start, false)]);
        let mut seen = HashSet::new();
        while let Some((block, passed)) = queue.pop_front() {
            if !seen.insert((block, passed)) || seen.len() > 100_000 {
                continue;
            }
            let Some(term) = func.layout.last_op(block) else {
                continue;
            };
            let succ_blocks = |op: Op| {
                func.dfg
                    .successors(op)
                    .iter()
                    .map(|&s| func.dfg.successor_block(s))
            };
            match *func.dfg.kind(term) {
                OpKind::EhDispatch { keys } => {
                    let succs = func.dfg.successors(term);
                    let catching = dispatch_catches(func, keys);
                    for (i, key) in func.dfg.handlers(keys).iter().enumerate() {
                        if self.key_handles(key, exn) {
                            return true;
                        }
                        match key {
                            HandlerKey::Terminate => {
                                if !passed && !catching {
                                    return true;
                                }
                                break;
                            }
                            HandlerKey::Unwind => {
                                if let Some(&s) = succs.get(i) {
                                    queue.push_back((
                                        func.dfg.successor_block(s),
                                        passed || catching,
                                    ));
                                }
                                break;
                            }
                            // Handled by `key_handles` above.
                            HandlerKey::Catch(_) | HandlerKey::CatchAll | HandlerKey::Filter(_) => {
                            }
                        }
                    }
                }
                OpKind::EhTerminate if !passed => return true,
                OpKind::Br | OpKind::BrCond | OpKind::SwitchFlat { .. } => {
                    queue.extend(succ_blocks(term).map(|b| (b, passed)))
                }
                OpKind::TryCall { .. } => {
                    queue.extend(succ_blocks(term).take(1).map(|b| (b, passed)))
                }
                _ => {}
            }
        }
        false
    }

    /// g++'s noexcept rule in a flat frame: whether the EH code from `start` reaches a
    /// `terminate` boundary (dispatch key or `cir.eh.terminate`) through cleanups only,
    /// before any dispatch with catching keys — then g++ terminates without running
    /// those cleanups.
    fn flat_doomed(&self, start: Block) -> bool {
        let func = self.cur.func;
        let mut queue = VecDeque::from([start]);
        let mut seen = HashSet::new();
        let mut doomed = false;
        while let Some(block) = queue.pop_front() {
            if !seen.insert(block) || seen.len() > 100_000 {
                continue;
            }
            let Some(term) = func.layout.last_op(block) else {
                continue;
            };
            let succs = func.dfg.successors(term);
            match *func.dfg.kind(term) {
                OpKind::EhDispatch { keys } => {
                    if dispatch_catches(func, keys) {
                        return false;
                    }
                    for (i, key) in func.dfg.handlers(keys).iter().enumerate() {
                        match key {
                            HandlerKey::Terminate => {
                                doomed = true;
                                break;
                            }
                            HandlerKey::Unwind => {
                                if let Some(&s) = succs.get(i) {
                                    queue.push_back(func.dfg.successor_block(s));
                                }
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                OpKind::EhTerminate => doomed = true,
                OpKind::Br | OpKind::BrCond | OpKind::SwitchFlat { .. } => {
                    queue.extend(succs.iter().map(|&s| func.dfg.successor_block(s)))
                }
                // A path that cannot be taken (the `unreachable` default of a
                // destination switch) leads nowhere.
                OpKind::Unreachable => {}
                OpKind::TryCall { .. } => {
                    queue.extend(succs.first().map(|&s| func.dfg.successor_block(s)))
                }
                _ => return false,
            }
        }
        doomed
    }

    /// Phase 1 in an MSVC frame: the catchswitch / cleanuppad chain from `start`.
    fn msvc_search(&self, f: &Frame<'m>, start: Block, exn: u32) -> bool {
        self.msvc_matching_pad(f, start, exn).is_some()
    }

    /// The `cir.catchpad` of the catchswitch / cleanuppad chain from `start` that catches
    /// `exn`.
    fn msvc_matching_pad(&self, f: &Frame<'m>, start: Block, exn: u32) -> Option<Op> {
        let func = f.func;
        let mut block = start;
        for _ in 0..10_000 {
            let first = func.layout.first_op(block)?;
            match *func.dfg.kind(first) {
                OpKind::CatchSwitch { .. } => {
                    let (handlers, unwind) = func.dfg.catchswitch_edges(first);
                    for &s in handlers {
                        let Some(pad) = func.layout.first_op(func.dfg.successor_block(s)) else {
                            continue;
                        };
                        if let OpKind::CatchPad {
                            type_desc,
                            adjectives,
                            ..
                        } = *func.dfg.kind(pad)
                        {
                            match type_desc.expand() {
                                None => return Some(pad),
                                Some(d) => {
                                    let ty = cxx_types::msvc_handler_type(
                                        self.module.ctx.name(d),
                                        adjectives,
                                    );
                                    if self.catch_adjust(&ty, exn).is_some() {
                                        return Some(pad);
                                    }
                                }
                            }
                        }
                    }
                    block = func.dfg.successor_block(unwind?);
                }
                OpKind::CleanupPad => {
                    let &token = func.dfg.results(first).first()?;
                    let next = func.walk_ops().into_iter().find_map(|op| {
                        (matches!(func.dfg.kind(op), OpKind::CleanupRet)
                            && func.dfg.operands(op).first() == Some(&token))
                        .then(|| func.dfg.successors(op).first().copied())
                    });
                    match next {
                        Some(Some(s)) => block = func.dfg.successor_block(s),
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// What an Itanium landing pad selects for `exn`; `None` when the pad is skipped.
    pub(crate) fn landing_selection(
        &self,
        f: &Frame<'m>,
        block: Block,
        exn: u32,
    ) -> Option<Landing> {
        let func = f.func;
        let first = func.layout.first_op(block)?;
        let OpKind::EhLandingPad { cleanup, clauses } = *func.dfg.kind(first) else {
            return None;
        };
        let ExtraData::LandingPadClauses(clauses) = func.dfg.extra(clauses) else {
            return None;
        };
        for clause in clauses {
            match clause {
                LandingPadClause::Catch(Some(sym)) => {
                    let ty = cxx_types::type_of_typeinfo_symbol(self.module.ctx.name(*sym));
                    if let Some(adjust) = self.catch_adjust(&ty, exn) {
                        return Some(Landing::Catch(adjust, Some(*sym)));
                    }
                }
                LandingPadClause::Catch(None) => {
                    return Some(Landing::Catch(Adjust::object(), None));
                }
                LandingPadClause::Filter(list) => {
                    let allowed: Vec<String> = list
                        .iter()
                        .map(|s| cxx_types::type_of_typeinfo_symbol(self.module.ctx.name(*s)))
                        .collect();
                    if !self.spec_allows(&allowed, exn) {
                        return Some(Landing::Filter(allowed));
                    }
                }
            }
        }
        cleanup.then_some(Landing::Cleanup)
    }

    /// Phase 2: unwinds `exn` from the running point until code runs that handles it
    /// (or cleans up for it).
    pub(crate) fn unwind(&mut self, exn: u32) -> Result<(), Stop> {
        let forced = self.rt.is_forced(exn);
        loop {
            if forced {
                self.forced_reach_frame(exn)?;
            }
            if self.at_nothrow_call(&self.cur) {
                self.leave_frame_unwinding(exn)?;
                continue;
            }
            let landed = match self.cur.phase {
                Phase::Structured => self.unwind_structured(exn)?,
                Phase::Flat => self.unwind_flat(exn)?,
                Phase::Itanium => self.unwind_itanium(exn)?,
                Phase::Msvc => self.unwind_msvc(exn)?,
            };
            if landed {
                return Ok(());
            }
            self.leave_frame_unwinding(exn)?;
        }
    }

    fn land(&mut self, exn: u32, succ: Successor) -> Result<(), Stop> {
        let func = self.cur.func;
        self.cur.landed = Some(exn);
        let block = func.dfg.successor_block(succ);
        let args: Vec<u64> = func
            .dfg
            .successor_args(succ)
            .iter()
            .map(|&v| self.get(v))
            .collect();
        self.enter_block(block, &args, Some(u64::from(exn)))
    }

    fn unwind_flat(&mut self, exn: u32) -> Result<bool, Stop> {
        if let Some(s) = self.unwind_dest(&self.cur) {
            if self.flat_doomed(self.cur.func.dfg.successor_block(s)) {
                self.terminate_at_boundary(exn)?;
                return Ok(true);
            }
            self.land(exn, s)?;
            return Ok(true);
        }
        self.frame_exit_checks(exn)?;
        Ok(false)
    }

    fn unwind_itanium(&mut self, exn: u32) -> Result<bool, Stop> {
        let Some(s) = self.unwind_dest(&self.cur) else {
            return Ok(false);
        };
        let block = self.cur.func.dfg.successor_block(s);
        if self
            .cur
            .func
            .layout
            .first_op(block)
            .map(|op| *self.cur.func.dfg.kind(op))
            .is_none_or(|k| !matches!(k, OpKind::EhLandingPad { .. }))
        {
            return Err(self.error(
                "the unwind destination of an Itanium call must start with cir.eh.landingpad"
                    .into(),
            ));
        }
        let Some(selected) = self.landing_selection(&self.cur, block, exn) else {
            return Ok(false);
        };
        let selector = match selected {
            Landing::Catch(adjust, sym) => {
                // The type id of the matching clause, as the personality reports it.
                let handler =
                    sym.map(|s| cxx_types::type_of_typeinfo_symbol(self.module.ctx.name(s)));
                self.select_handler(exn, adjust, handler)?;
                self.typeid(sym)
            }
            Landing::Filter(filter) => {
                let index = match self.filters.iter().position(|f| *f == filter) {
                    Some(i) => i,
                    None => {
                        self.filters.push(filter.clone());
                        self.filters.len() - 1
                    }
                };
                if let Some(e) = self.rt.get_mut(exn) {
                    e.filter = Some(filter);
                }
                (-(index as i64 + 1)) as u32
            }
            Landing::Cleanup => 0,
        };
        self.cur.selector = selector;
        self.land(exn, s)?;
        Ok(true)
    }

    fn unwind_msvc(&mut self, exn: u32) -> Result<bool, Stop> {
        if let Some(s) = self.unwind_dest(&self.cur) {
            self.leave_funclets_for(self.cur.func.dfg.successor_block(s))?;
            self.land(exn, s)?;
            return Ok(true);
        }
        self.frame_exit_checks(exn)?;
        Ok(false)
    }

    /// Before an exception enters the pad starting `block` (from a call, a `cleanupret`
    /// or a `catchswitch` that unwinds on): the funclets it leaves —
    /// every active funclet nested deeper than the pad's parent (`within none`: all of
    /// them) — end, and a catch funclet left that way ends its catch (the caught
    /// exception is destroyed unless rethrown), as `__CxxFrameHandler3` does when a
    /// handler in the same frame catches an exception thrown from a catch block.
    fn leave_funclets_for(&mut self, block: Block) -> Result<(), Stop> {
        let func = self.cur.func;
        let Some(pad) = func.layout.first_op(block) else {
            return Ok(());
        };
        if !matches!(
            func.dfg.kind(pad),
            OpKind::CatchSwitch { .. } | OpKind::CleanupPad
        ) {
            return Ok(());
        }
        // Tokens carry the id of the exception their funclet runs for.
        let parent = func.dfg.operands(pad).first().map(|&v| self.get(v) as u32);
        while let Some(&top) = self.cur.pads.last() {
            let top_exn = match top {
                Pad::Catch { exn } | Pad::Cleanup { exn } => exn,
            };
            if Some(top_exn) == parent {
                break;
            }
            self.cur.pads.pop();
            if let Pad::Catch { .. } = top {
                self.end_catch()?;
            }
        }
        Ok(())
    }

    /// What happens when `exn` leaves the running frame: terminate if it escapes an
    /// EH cleanup of another exception (flat cleanup range, MSVC cleanup funclet); MSVC
    /// catch funclets it leaves end their catch.
    fn frame_exit_checks(&mut self, exn: u32) -> Result<(), Stop> {
        match self.cur.phase {
            Phase::Flat => {
                if self.cur.open_cleanups.iter().any(|&e| e != exn) {
                    return self.terminate_for(exn);
                }
                self.cur.open_cleanups.clear();
            }
            Phase::Msvc => {
                if self
                    .cur
                    .pads
                    .iter()
                    .any(|p| matches!(p, Pad::Cleanup { exn: e } if *e != exn))
                {
                    return self.terminate_for(exn);
                }
                while let Some(pad) = self.cur.pads.pop() {
                    if let Pad::Catch { .. } = pad {
                        self.end_catch()?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Continues unwinding `exn` out of the running frame (flat `cir.resume`,
    /// `cir.resume.flat`, `cleanupret unwind to caller`...).
    pub(crate) fn continue_unwinding_out(&mut self, exn: u32) -> Result<(), Stop> {
        self.frame_exit_checks(exn)?;
        self.leave_frame_unwinding(exn)?;
        self.unwind(exn)
    }

    /// Pops the running frame as `exn` unwinds out of it.
    pub(crate) fn leave_frame_unwinding(&mut self, exn: u32) -> Result<(), Stop> {
        if self.rt.is_forced(exn)
            && matches!(
                self.stack.last(),
                Some(Slot::Boundary(Boundary::Entry { catches: false })) | None
            )
        {
            return self.forced_end_of_stack(exn);
        }
        if self.config.record_trace {
            let name = self.module.ctx.name(self.cur.func.name).to_string();
            self.record(Event::Unwind { function: name });
        }
        match self.pop_frame()? {
            None => Ok(()),
            Some(Boundary::Entry { catches: true }) => self.harness_escape(exn),
            Some(Boundary::Entry { catches: false })
            | Some(Boundary::Dtor)
            | Some(Boundary::StopFunction) => self.terminate_for(exn),
            Some(Boundary::UnexpectedHandler) | Some(Boundary::TerminateHandler) => {
                Err(Stop::Sync(SyncEnd::Threw(exn)))
            }
        }
    }

    /// The harness around a non-`main` entry caught `exn`: report it, destroy it,
    /// exit 1.
    fn harness_escape(&mut self, exn: u32) -> Result<(), Stop> {
        let ty = self.exn_display(exn);
        let value = self
            .rt
            .get(exn)
            .map(|e| e.value.clone())
            .unwrap_or_default();
        let entry = self.entry_name.clone();
        let shown = if value.is_empty() {
            ty.clone()
        } else {
            format!("{ty} {value}")
        };
        self.stderr.extend_from_slice(
            format!("ehir run: exception escaped @{entry}: {shown}\n").as_bytes(),
        );
        if self.config.record_trace {
            self.record(Event::Escape { id: exn, ty, value });
        }
        self.rt.begin_catch(exn);
        self.end_catch()?;
        Err(Stop::Exit(1))
    }

    // ---- unexpected and terminate ---------------------------------------------------------

    /// `std::unexpected` for an exception that violated the specification `allowed`
    /// (libstdc++'s `__cxa_call_unexpected`, C++14 rules).
    /// For a forced unwinding libstdc++'s personality calls `std::unexpected` itself:
    /// the handler runs without the exception being current, then `std::terminate`.
    pub(crate) fn call_unexpected(&mut self, exn: u32, allowed: Vec<String>) -> Result<(), Stop> {
        if self.config.record_trace {
            self.record(Event::Unexpected {
                id: exn,
                ty: self.exn_display(exn),
            });
        }
        if self.rt.is_forced(exn) {
            return self.unexpected_then_terminate();
        }
        self.rt.begin_catch(exn);
        let handler = self.rt.unexpected_handler;
        if handler == 0 {
            return self.terminate();
        }
        let Some(sym) = self.symbol_of_pointer(handler) else {
            return Err(self.error("the std::unexpected handler is not a function".into()));
        };
        match self.call_sync(Boundary::UnexpectedHandler, sym, &[])? {
            SyncEnd::Returned(_) => self.terminate(),
            SyncEnd::Threw(e2) => {
                self.rt.begin_catch(e2);
                if self.spec_allows(&allowed, e2) {
                    // Allowed: it propagates from the violated specification.
                    self.rt.rethrow();
                    if self.config.record_trace {
                        self.record(Event::Rethrow {
                            id: e2,
                            ty: self.exn_display(e2),
                        });
                    }
                    self.end_catch()?;
                    self.end_catch()?;
                    self.raise(e2)
                } else if allowed.iter().any(|t| {
                    self.hierarchy
                        .catches(t, "St13bad_exception", CatchRules::Itanium)
                        .is_some()
                }) {
                    self.end_catch()?;
                    self.end_catch()?;
                    let bad = self.throw_bad_exception()?;
                    self.raise(bad)
                } else {
                    self.terminate()
                }
            }
        }
    }

    /// `std::unexpected()` called directly: its handler, then `std::terminate` (also
    /// when the handler throws).
    fn unexpected_then_terminate(&mut self) -> Result<(), Stop> {
        let handler = self.rt.unexpected_handler;
        if handler != 0 {
            let Some(sym) = self.symbol_of_pointer(handler) else {
                return Err(self.error("the std::unexpected handler is not a function".into()));
            };
            if let SyncEnd::Threw(e) = self.call_sync(Boundary::UnexpectedHandler, sym, &[])? {
                self.rt.begin_catch(e);
            }
        }
        self.terminate()
    }

    /// `__cxa_call_terminate`: the exception becomes current, then `std::terminate`.
    /// For a forced unwinding libstdc++'s personality calls `std::terminate` directly.
    pub(crate) fn terminate_for(&mut self, exn: u32) -> Result<(), Stop> {
        if self.rt.is_forced(exn) {
            return self.terminate();
        }
        if self.rt.current() != Some(exn) {
            self.rt.begin_catch(exn);
        }
        self.terminate()
    }

    /// `std::terminate`: the handler (libstdc++'s verbose one by default), then abort.
    /// As in libstdc++, nothing guards against the handler calling `std::terminate`
    /// again (`throw;` without a caught exception, a noexcept violation): each call runs
    /// the handler anew, so such a handler recurses until the nesting of runtime calls
    /// runs out, where natively the stack overflows.
    pub(crate) fn terminate(&mut self) -> Result<(), Stop> {
        let handler = self.rt.terminate_handler;
        if handler != 0 {
            if let Some(sym) = self.symbol_of_pointer(handler) {
                if self.config.record_trace {
                    self.record(Event::Terminate {
                        message: "calling the std::set_terminate handler".into(),
                    });
                }
                let _ = self.call_sync(Boundary::TerminateHandler, sym, &[])?;
            }
        } else {
            // A caught forced unwinding has no type to show (libstdc++ finds none).
            let message = match self.rt.current().filter(|&id| !self.rt.is_forced(id)) {
                Some(id) => {
                    let ty = self.exn_display(id);
                    let mut m = format!("terminate called after throwing an instance of '{ty}'");
                    if self.exn_type(id) == "St13bad_exception" {
                        m.push_str("\n  what():  std::bad_exception");
                    }
                    m
                }
                None => "terminate called without an active exception".to_string(),
            };
            self.stderr.extend_from_slice(message.as_bytes());
            self.stderr.push(b'\n');
            if self.config.record_trace {
                let first = message.lines().next().unwrap_or_default().to_string();
                self.record(Event::Terminate { message: first });
            }
        }
        Err(self.abort_now())
    }
}
