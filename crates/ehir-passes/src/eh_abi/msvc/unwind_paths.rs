//! Where each exception goes: the walk from every raise point along its unwind path to the
//! first EH action it meets (a cleanup, a dispatch, `std::terminate` or the caller), the
//! funclet each cleanup and dispatch is entered from (its parent pad), and the unwind
//! destination of every pad.

use super::{Action, CleanupInfo, ExitKind, Funclet, Lowering, Target};
use ehir_core::{Block, Diagnostic, HandlerKey, Op, OpKind, Successor, ValueDef};
use std::collections::BTreeSet;
use std::rc::Rc;

impl<'a> Lowering<'a> {
    /// The unwind successor of a raise point, if it is one.
    pub(super) fn unwind_successor(&self, op: Op) -> Option<Successor> {
        match self.kind(op) {
            OpKind::TryCall { .. } => self.func.dfg.successors(op).get(1).copied(),
            OpKind::Throw { .. } => self.func.dfg.successors(op).first().copied(),
            _ => None,
        }
    }

    /// The successors of a terminator that normal control flow takes (all but unwind edges).
    pub(super) fn normal_successors(&self, op: Op) -> Vec<Block> {
        let dfg = &self.func.dfg;
        match self.kind(op) {
            OpKind::TryCall { .. } => dfg.successor_blocks(op).take(1).collect(),
            OpKind::Throw { .. } => Vec::new(),
            _ => dfg.successor_blocks(op).collect(),
        }
    }

    /// Whether a block starts an EH action that a branch may enter (a cleanup with its
    /// `cir.begin_cleanup`, or a dispatch).
    pub(super) fn is_action_block(&self, block: Block) -> bool {
        self.func.layout.first_op(block).is_some_and(|op| {
            matches!(
                self.func.dfg.kind(op),
                OpKind::BeginCleanup | OpKind::EhDispatch { .. }
            )
        })
    }

    /// Follows an unwind path from the start of `start` to the first EH action.
    pub(super) fn walk(&self, start: Block) -> Result<Action, Diagnostic> {
        let mut block = start;
        let mut seen = BTreeSet::new();
        loop {
            if !seen.insert(block) {
                return Err(self.block_error(
                    start,
                    "this unwind path loops without reaching an EH action",
                ));
            }
            let mut op = self.first_op_of(block, "empty block on an unwind path")?;
            if matches!(self.kind(op), OpKind::EhInitiate { .. }) {
                op = self.op_after(op, "cir.eh.initiate must be followed by code")?;
            }
            match self.kind(op) {
                OpKind::BeginCleanup => return Ok(Action::Cleanup(block)),
                OpKind::EhDispatch { .. } => return Ok(Action::Dispatch(op)),
                OpKind::Resume => return Ok(Action::Caller),
                OpKind::EhTerminate => return Ok(Action::Terminate),
                OpKind::Br => {
                    block = self
                        .func
                        .dfg
                        .successor_blocks(op)
                        .next()
                        .ok_or_else(|| self.error(op, "cir.br without a destination"))?;
                }
                _ => {
                    if self.func.layout.first_op(block) != Some(op) {
                        return Err(self.error(
                            op,
                            "eh-abi-lowering=msvc: unexpected op right after cir.eh.initiate",
                        ));
                    }
                    return Ok(Action::Cleanup(block));
                }
            }
        }
    }

    /// The blocks, exits and nature of the cleanup starting at `start` (computed once).
    pub(super) fn cleanup_info(&mut self, start: Block) -> Result<Rc<CleanupInfo>, Diagnostic> {
        if let Some(info) = self.cleanups.get(&start) {
            return Ok(Rc::clone(info));
        }
        let first = self.func.layout.first_op(start);
        let begin = first.filter(|&op| matches!(self.kind(op), OpKind::BeginCleanup));
        let token = begin.and_then(|op| self.func.dfg.results(op).first().copied());
        let mut blocks = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        let mut exits = Vec::new();
        let mut pops = Vec::new();
        let mut transparent = begin.is_some();
        seen.insert(start);
        while let Some(block) = stack.pop() {
            blocks.push(block);
            let mut ended = false;
            for op in self.func.layout.ops(block) {
                if ended {
                    // The terminator after `cir.end_cleanup` leads to the next action.
                    continue;
                }
                match self.kind(op) {
                    OpKind::BeginCleanup if Some(op) == begin => {}
                    OpKind::EndCleanup
                        if begin.is_some()
                            && self.func.dfg.operands(op).first().copied() == token =>
                    {
                        exits.push((block, ExitKind::EndCleanup(op)));
                        ended = true;
                    }
                    OpKind::EndCatch => {
                        let catch = self
                            .func
                            .dfg
                            .operands(op)
                            .first()
                            .and_then(|&t| match self.func.dfg.value_def(t) {
                                ValueDef::Result(c, 0)
                                    if matches!(self.kind(c), OpKind::BeginCatch) =>
                                {
                                    Some(c)
                                }
                                _ => None,
                            })
                            .ok_or_else(|| {
                                self.error(op, "cir.end_catch must take a cir.begin_catch token")
                            })?;
                        pops.push(catch);
                    }
                    OpKind::Br => {}
                    OpKind::Resume => {
                        if begin.is_some() {
                            return Err(self.error(
                                op,
                                "cir.resume inside a cleanup before its cir.end_cleanup",
                            ));
                        }
                        exits.push((block, ExitKind::Resume(op)));
                        transparent = false;
                    }
                    _ => transparent = false,
                }
            }
            if ended {
                continue;
            }
            let Some(term) = self.func.layout.last_op(block) else {
                continue;
            };
            if matches!(self.kind(term), OpKind::Resume) {
                continue;
            }
            for (i, succ) in self.normal_successors(term).into_iter().enumerate() {
                if self.is_action_block(succ) {
                    exits.push((block, ExitKind::Edge(i)));
                    continue;
                }
                if seen.insert(succ) {
                    stack.push(succ);
                }
            }
        }
        let info = Rc::new(CleanupInfo {
            begin,
            blocks,
            transparent,
            pops,
            exits,
        });
        self.cleanups.insert(start, Rc::clone(&info));
        Ok(info)
    }

    /// The action an exit of a cleanup leads to.
    pub(super) fn exit_action(&self, block: Block, exit: ExitKind) -> Result<Action, Diagnostic> {
        match exit {
            ExitKind::Resume(_) => Ok(Action::Caller),
            ExitKind::Edge(i) => {
                let term = self.terminator_of(block, "block without terminator")?;
                let succ = self.normal_successors(term)[i];
                self.walk(succ)
            }
            ExitKind::EndCleanup(op) => {
                let term = self.op_after(op, "cir.end_cleanup must be followed by code")?;
                match self.kind(term) {
                    OpKind::Br => {
                        let succ = self
                            .func
                            .dfg
                            .successor_blocks(term)
                            .next()
                            .ok_or_else(|| self.error(term, "cir.br without a destination"))?;
                        self.walk(succ)
                    }
                    OpKind::Resume => Ok(Action::Caller),
                    OpKind::EhTerminate => Ok(Action::Terminate),
                    _ => Err(self.error(
                        term,
                        format!(
                            "eh-abi-lowering=msvc: {} after cir.end_cleanup is not supported (expected cir.br, cir.resume or cir.eh.terminate)",
                            self.kind(term).name()
                        ),
                    )),
                }
            }
        }
    }

    /// The funclet around `funclet`.
    pub(super) fn parent(&self, funclet: Funclet) -> Option<Funclet> {
        match funclet {
            Funclet::Function => None,
            Funclet::Catch(c) => {
                let dispatch = self.catch_dispatch.get(&c)?;
                self.arrival.get(&Action::Dispatch(*dispatch)).copied()
            }
            Funclet::Cleanup(b) => self.arrival.get(&Action::Cleanup(b)).copied(),
        }
    }

    /// The innermost funclet left after ending catch `catch` from inside `stack`.
    pub(super) fn pop(&self, stack: Funclet, catch: Op, site: Op) -> Result<Funclet, Diagnostic> {
        let mut cur = stack;
        for _ in 0..=self.catch_dispatch.len() + self.arrival.len() {
            if cur == Funclet::Catch(catch) {
                return self
                    .parent(cur)
                    .ok_or_else(|| self.error(site, "catch handler without a dispatch"));
            }
            match self.parent(cur) {
                Some(p) => cur = p,
                None => break,
            }
        }
        Err(self.error(
            site,
            "eh-abi-lowering=msvc: this cir.end_catch ends a catch that is not active on this unwind path",
        ))
    }

    pub(super) fn dispatch_keys(&self, dispatch: Op) -> Vec<HandlerKey> {
        match self.kind(dispatch) {
            OpKind::EhDispatch { keys } => self.func.dfg.handlers(keys).to_vec(),
            _ => Vec::new(),
        }
    }

    pub(super) fn has_catch_keys(&self, dispatch: Op) -> bool {
        self.dispatch_keys(dispatch)
            .iter()
            .any(|k| matches!(k, HandlerKey::Catch(_) | HandlerKey::CatchAll))
    }

    /// Where a dispatch sends exceptions no catch key takes: `Some(action)` for `unwind`
    /// and `terminate` keys (a `filter` is ignored on this ABI), `None` after a catch-all.
    pub(super) fn dispatch_next(&self, dispatch: Op) -> Result<Option<Action>, Diagnostic> {
        let keys = self.dispatch_keys(dispatch);
        let succs: Vec<Block> = self.func.dfg.successor_blocks(dispatch).collect();
        if keys.len() != succs.len() {
            return Err(self.error(dispatch, "cir.eh.dispatch needs one destination per key"));
        }
        for (key, &succ) in keys.iter().zip(&succs) {
            match key {
                HandlerKey::Unwind => return Ok(Some(self.walk(succ)?)),
                HandlerKey::Terminate => return Ok(Some(Action::Terminate)),
                HandlerKey::CatchAll => return Ok(None),
                HandlerKey::Catch(_) | HandlerKey::Filter(_) => {}
            }
        }
        Ok(Some(Action::Caller))
    }

    /// Follows `action` from an exception raised in `stack` to the pad it enters (skipping
    /// cleanups that only end catches and dispatches without catch keys). Returns the target
    /// and the innermost funclet still active there.
    pub(super) fn resolve(
        &mut self,
        mut action: Action,
        mut stack: Funclet,
        site: Op,
    ) -> Result<(Target, Funclet), Diagnostic> {
        let mut seen = BTreeSet::new();
        loop {
            if !seen.insert(action) {
                return Err(self.error(site, "this unwind path loops without reaching a handler"));
            }
            match action {
                Action::Caller => return Ok((Target::Caller, stack)),
                Action::Terminate => return Ok((Target::Terminate(stack), stack)),
                Action::Cleanup(block) => {
                    let info = self.cleanup_info(block)?;
                    if info.transparent {
                        for &catch in &info.pops {
                            stack = self.pop(stack, catch, site)?;
                        }
                        let (exit_block, exit) = *info.exits.first().ok_or_else(|| {
                            self.block_error(block, "this cleanup never ends (no cir.end_cleanup)")
                        })?;
                        action = self.exit_action(exit_block, exit)?;
                        continue;
                    }
                    self.arrive(action, stack, site)?;
                    return Ok((Target::Pad(block), stack));
                }
                Action::Dispatch(dispatch) => {
                    if !self.has_catch_keys(dispatch) {
                        action = self.dispatch_next(dispatch)?.unwrap_or(Action::Caller);
                        continue;
                    }
                    self.arrive(action, stack, site)?;
                    let block = self
                        .func
                        .layout
                        .op_block(dispatch)
                        .ok_or_else(|| self.error(dispatch, "dispatch is not placed"))?;
                    return Ok((Target::Pad(block), stack));
                }
            }
        }
    }

    /// Where an exception that meets `action` ends up if every cleanup on its way just
    /// runs: a dispatch with catch keys, `std::terminate` or the caller.
    pub(super) fn chain_end(&mut self, start: Action, site: Op) -> Result<Action, Diagnostic> {
        let mut action = start;
        let mut seen = BTreeSet::new();
        let end = loop {
            if let Some(&end) = self.chain_ends.get(&action) {
                break end;
            }
            if !seen.insert(action) {
                return Err(self.error(site, "this unwind path loops without reaching a handler"));
            }
            match action {
                Action::Caller | Action::Terminate => break action,
                Action::Cleanup(block) => {
                    let info = self.cleanup_info(block)?;
                    let Some(&(exit_block, exit)) = info.exits.first() else {
                        // A cleanup that never ends (it terminates or is unreachable).
                        break Action::Terminate;
                    };
                    action = self.exit_action(exit_block, exit)?;
                }
                Action::Dispatch(dispatch) => {
                    if self.has_catch_keys(dispatch) {
                        break action;
                    }
                    action = self.dispatch_next(dispatch)?.unwrap_or(Action::Caller);
                }
            }
        };
        for a in seen {
            self.chain_ends.insert(a, end);
        }
        self.chain_ends.insert(start, end);
        Ok(end)
    }

    /// Records that an exception from `stack` enters `action`'s pad.
    pub(super) fn arrive(
        &mut self,
        action: Action,
        stack: Funclet,
        site: Op,
    ) -> Result<(), Diagnostic> {
        if let Funclet::Cleanup(_) = stack {
            return Err(self.error(
                site,
                "eh-abi-lowering=msvc: an exception raised inside a cleanup cannot be handled in the same function (Microsoft C++ cleanup funclets contain no EH pads)",
            ));
        }
        match self.arrival.get(&action) {
            Some(&prev) if prev != stack => Err(self.error(
                site,
                "eh-abi-lowering=msvc: this unwind path enters an EH action that is also entered from another funclet; funclet pads have one parent",
            )),
            Some(_) => Ok(()),
            None => {
                self.arrival.insert(action, stack);
                self.action_queue.push(action);
                Ok(())
            }
        }
    }

    /// Records, for each catch handler that an exception from `from` leaves before reaching
    /// `target` (with `to` still active), that its dispatch's handlers exit to `target`.
    pub(super) fn record_exits(&mut self, from: Funclet, to: Funclet, target: Target, site: Op) {
        let mut cur = from;
        for _ in 0..=self.catch_dispatch.len() + self.arrival.len() {
            if cur == to {
                return;
            }
            if let Funclet::Catch(c) = cur
                && let Some(&d) = self.catch_dispatch.get(&c)
            {
                self.dispatch_exits
                    .entry(d)
                    .or_default()
                    .push((target, site));
            }
            match self.parent(cur) {
                Some(p) => cur = p,
                None => return,
            }
        }
    }

    pub(super) fn visit_block(&mut self, block: Block, funclet: Funclet) -> Result<(), Diagnostic> {
        let colors = self.colors.entry(block).or_default();
        if !colors.insert(funclet) {
            return Ok(());
        }
        let shared = colors.len() > 1;
        let ops: Vec<Op> = self.func.layout.ops(block).collect();
        let mut next_funclet = funclet;
        for &op in &ops {
            if let Some(succ) = self.unwind_successor(op) {
                if shared {
                    return Err(self.error(
                        op,
                        "eh-abi-lowering=msvc: this block is reached from two funclets and may throw; it cannot be duplicated",
                    ));
                }
                let dest = self.func.dfg.successor_block(succ);
                let action = self.walk(dest)?;
                if let Funclet::Cleanup(_) = funclet {
                    // The runtime terminates when an exception escapes a cleanup funclet;
                    // cleanups between here and that termination never run (as in g++,
                    // where the noexcept destructor's frame terminates in the search phase).
                    match self.chain_end(action, op)? {
                        Action::Terminate | Action::Caller => {
                            self.raises.push((op, funclet, Target::Caller));
                        }
                        _ => {
                            return Err(self.error(
                                op,
                                "eh-abi-lowering=msvc: an exception raised inside a cleanup cannot be caught in the same function (Microsoft C++ cleanup funclets contain no EH pads)",
                            ));
                        }
                    }
                    continue;
                }
                if self.chain_end(action, op)? == Action::Terminate {
                    // The noexcept boundary is the first handler this exception meets: it
                    // terminates at once, without this frame's cleanups (as g++ does, and as
                    // the Itanium lowering's catch-all landing pad does).
                    self.raises
                        .push((op, funclet, Target::DirectTerminate(funclet)));
                    continue;
                }
                let (target, after) = self.resolve(action, funclet, op)?;
                self.record_exits(funclet, after, target, op);
                self.raises.push((op, funclet, target));
            }
            match self.kind(op) {
                OpKind::EndCatch if !matches!(funclet, Funclet::Cleanup(_)) => {
                    let token = self.func.dfg.operands(op).first().copied();
                    let catch = token.and_then(|t| match self.func.dfg.value_def(t) {
                        ValueDef::Result(c, 0) if matches!(self.kind(c), OpKind::BeginCatch) => {
                            Some(c)
                        }
                        _ => None,
                    });
                    let catch = catch.ok_or_else(|| {
                        self.error(op, "cir.end_catch must take a cir.begin_catch token")
                    })?;
                    if funclet != Funclet::Catch(catch) {
                        return Err(self.error(
                            op,
                            "eh-abi-lowering=msvc: this cir.end_catch ends a catch other than the innermost one",
                        ));
                    }
                    next_funclet = self.pop(funclet, catch, op)?;
                }
                OpKind::EhInitiate { .. }
                | OpKind::EhDispatch { .. }
                | OpKind::BeginCleanup
                | OpKind::EndCleanup
                    if !matches!(funclet, Funclet::Cleanup(_)) =>
                {
                    return Err(self.error(
                        op,
                        format!(
                            "eh-abi-lowering=msvc: {} is reachable without an exception",
                            self.kind(op).name()
                        ),
                    ));
                }
                _ => {}
            }
        }
        // A cleanup's blocks were all queued when it was entered.
        if let Funclet::Cleanup(_) = funclet {
            return Ok(());
        }
        if let Some(term) = self.func.layout.last_op(block) {
            if matches!(self.kind(term), OpKind::Resume) {
                return Err(self.error(
                    term,
                    "eh-abi-lowering=msvc: cir.resume is reachable without an exception",
                ));
            }
            for succ in self.normal_successors(term).into_iter().rev() {
                self.block_queue.push((succ, next_funclet));
            }
        }
        Ok(())
    }

    pub(super) fn visit_action(&mut self, action: Action) -> Result<(), Diagnostic> {
        let stack = *self
            .arrival
            .get(&action)
            .expect("queued actions have arrived");
        match action {
            Action::Cleanup(block) => {
                let info = self.cleanup_info(block)?;
                for &b in info.blocks.iter().rev() {
                    self.block_queue.push((b, Funclet::Cleanup(block)));
                }
                let site = info
                    .begin
                    .or_else(|| self.func.layout.first_op(block))
                    .ok_or_else(|| self.block_error(block, "empty cleanup block"))?;
                let mut after = stack;
                for &catch in &info.pops {
                    after = self.pop(after, catch, site)?;
                }
                let mut exits = Vec::new();
                for &(exit_block, exit) in &info.exits {
                    let next = self.exit_action(exit_block, exit)?;
                    let (target, end) = self.resolve(next, after, site)?;
                    self.record_exits(stack, end, target, site);
                    exits.push((exit_block, exit, target));
                }
                if let Some(&(b, _, first)) = exits.first()
                    && let Some(&(_, _, other)) = exits.iter().find(|e| e.2 != first)
                {
                    return Err(self.block_error(
                        b,
                        format!(
                            "eh-abi-lowering=msvc: this cleanup continues unwinding to two places ({} and {}); a cleanup funclet has one unwind destination",
                            self.target_name(first),
                            self.target_name(other)
                        ),
                    ));
                }
                self.cleanup_exits.insert(block, exits);
            }
            Action::Dispatch(dispatch) => {
                let keys = self.dispatch_keys(dispatch);
                let succs: Vec<Block> = self.func.dfg.successor_blocks(dispatch).collect();
                for (key, &succ) in keys.iter().zip(&succs) {
                    if !matches!(key, HandlerKey::Catch(_) | HandlerKey::CatchAll) {
                        continue;
                    }
                    let begin = self
                        .func
                        .layout
                        .first_op(succ)
                        .filter(|&op| matches!(self.kind(op), OpKind::BeginCatch))
                        .ok_or_else(|| {
                            self.error(
                                dispatch,
                                "a catch key's destination must begin with cir.begin_catch",
                            )
                        })?;
                    if let Some(&other) = self.catch_dispatch.get(&begin)
                        && other != dispatch
                    {
                        return Err(self.error(
                            dispatch,
                            "eh-abi-lowering=msvc: a catch handler shared by two dispatches",
                        ));
                    }
                    self.catch_dispatch.insert(begin, dispatch);
                }
                for (key, &succ) in keys.iter().zip(&succs).rev() {
                    if !matches!(key, HandlerKey::Catch(_) | HandlerKey::CatchAll) {
                        continue;
                    }
                    if let Some(begin) = self.func.layout.first_op(succ) {
                        self.block_queue.push((succ, Funclet::Catch(begin)));
                    }
                }
                let unwind = match self.dispatch_next(dispatch)? {
                    // An exception no catch takes meets only cleanups before a noexcept
                    // boundary: g++ calls std::terminate right after the failed match,
                    // without those cleanups; so does the terminate funclet here.
                    Some(next) if self.chain_end(next, dispatch)? == Action::Terminate => {
                        Some(Target::Terminate(stack))
                    }
                    Some(next) => {
                        let (target, end) = self.resolve(next, stack, dispatch)?;
                        // Leaving the catchswitch may also leave catches around it.
                        self.record_exits(stack, end, target, dispatch);
                        Some(target)
                    }
                    None => None,
                };
                self.dispatch_unwind.insert(dispatch, unwind);
            }
            Action::Terminate | Action::Caller => {}
        }
        Ok(())
    }

    pub(super) fn target_name(&self, target: Target) -> String {
        match target {
            Target::Caller => "the caller".to_string(),
            Target::Pad(b) => match self.func.layout.first_op(b).map(|op| self.kind(op)) {
                Some(OpKind::EhDispatch { .. }) => "a catch dispatch of this function".to_string(),
                _ => "a cleanup of this function".to_string(),
            },
            Target::Terminate(_) | Target::DirectTerminate(_) => "std::terminate".to_string(),
        }
    }

    /// A catch-all catchswitch never unwinds; give it the destination its handlers' exits
    /// use. Then check that every catchswitch and the exits of its handlers agree.
    pub(super) fn decide_catch_all_unwinds(&mut self) -> Result<(), Diagnostic> {
        let dispatches: Vec<Op> = self.dispatch_unwind.keys().copied().collect();
        for d in dispatches {
            let exits = self.dispatch_exits.get(&d).cloned().unwrap_or_default();
            let unwind = match self.dispatch_unwind[&d] {
                Some(t) => t,
                None => exits.first().map(|e| e.0).unwrap_or(Target::Caller),
            };
            self.dispatch_unwind.insert(d, Some(unwind));
            if let Some(&(target, site)) = exits.iter().find(|e| e.0 != unwind) {
                return Err(self
                    .error(
                        site,
                        format!(
                            "eh-abi-lowering=msvc: an exception leaving this catch handler unwinds to {}, but exceptions its dispatch does not catch unwind to {}; on this ABI both must unwind to the same place",
                            self.target_name(target),
                            self.target_name(unwind)
                        ),
                    )
                    .with_note(self.func.dfg.loc(d), "dispatch here"));
            }
        }
        Ok(())
    }
}
