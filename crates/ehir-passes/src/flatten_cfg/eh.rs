//! Exceptions: entering a `cir.try`, may-throw calls and throws that unwind, landing pads
//! (`cir.eh.initiate`) of EH scopes, EH cleanup blocks (`cir.begin_cleanup` …
//! `cir.end_cleanup`), the terminate and resume blocks, a try's `cir.eh.dispatch` and its
//! handlers (catch handlers open with `cir.begin_catch` and run `cir.end_catch` as their
//! cleanup; `unwind`, `filter` and `terminate` handlers).

use super::control_flow::LeavingTerminator;
use super::frames::{
    CleanupSource, CleanupState, ContainerData, EhScope, EhState, Frame, HandlerJob, Links,
    RegionFrame, ResumeTo, Role, Stage, TryState,
};
use super::{Flattener, FrameIdx};
use crate::region_utils::move_region_after;
use ehir_core::{Block, Diagnostic, Extra, FuncCursor, HandlerKey, Loc, Op, OpKind, Region, Value};

impl Flattener<'_> {
    /// Enters a `cir.try` with the handler keys `handlers` (its body and handler regions
    /// are `regions`). A try whose only handler is an `unwind` that just resumes is a plain
    /// scope; otherwise it becomes the EH scope (and EH area) of its body.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enter_try(
        &mut self,
        block: Block,
        handlers: Extra,
        regions: &[Region],
        cont: Block,
        links: Links,
        my: FrameIdx,
        loc: Loc,
    ) {
        let handlers = self.func.dfg.handlers(handlers).to_vec();
        let handler_regions = regions[1..].to_vec();
        let blocks = self.enter_first_region(block, regions[0], cont, loc);
        let interesting = handlers
            .iter()
            .zip(&handler_regions)
            .any(|(h, &r)| !(*h == HandlerKey::Unwind && self.is_trivial_resume(r)));
        if !interesting {
            self.push_one_region(cont, links, blocks, links, my, ContainerData::Simple);
            return;
        }
        let marker = self.new_block();
        self.place_before(marker, cont);
        let flags = if handlers
            .iter()
            .any(|h| matches!(h, HandlerKey::CatchAll | HandlerKey::Terminate))
        {
            (false, true)
        } else if handlers.iter().any(|h| matches!(h, HandlerKey::Filter(_))) {
            (false, false)
        } else {
            // A try's landing pad says `cleanup` only for cleanups of its own scope (it
            // has none), as upstream's: the EH ABI lowering finds the cleanups on the
            // way from the token's uses.
            (false, self.eh_flags(links.eh).1)
        };
        let state = TryState {
            loc,
            handlers,
            regions: handler_regions,
            marker,
            eh: EhState::new(flags.0, flags.1, Some(my)),
            stage: Stage::Body,
            jobs: Vec::new(),
            next_job: 0,
        };
        let body_links = Links {
            eh: EhScope::Frame(my),
            area: Some(my),
            ..links
        };
        let data = ContainerData::Try(state);
        self.push_one_region(cont, links, blocks, body_links, my, data);
    }

    /// A `cir.call` whose innermost EH scope is `eh`: when it may throw and `eh` has a
    /// landing pad, it becomes a `cir.try_call` in place that unwinds there, and the new
    /// block where the ops after it (from `next` on) continue is returned.
    pub(super) fn unwinding_call(
        &mut self,
        block: Block,
        op: Op,
        eh: EhScope,
        next: Option<Op>,
    ) -> Result<Option<Block>, Diagnostic> {
        let OpKind::Call { callee, sig, flags } = *self.func.dfg.kind(op) else {
            return Ok(None);
        };
        let may_throw =
            !flags.nothrow && !callee.expand().is_some_and(|s| self.nothrow.contains(&s));
        if !may_throw {
            return Ok(None);
        }
        let Some(lp) = self.landing_pad(eh) else {
            return Ok(None);
        };
        if next.is_none() {
            return Err(Diagnostic::error(
                self.func.dfg.loc(op),
                "block does not end with a terminator",
            ));
        }
        self.func.dfg.ops[op].kind = OpKind::TryCall { callee, sig, flags };
        let normal = self.new_block();
        self.func.layout.insert_block_after(normal, block);
        let to_normal = self.func.dfg.make_successor(normal, &[]);
        let to_landing_pad = self.func.dfg.make_successor(lp, &[]);
        self.func.dfg.attach_successor(op, to_normal);
        self.func.dfg.attach_successor(op, to_landing_pad);
        Ok(Some(normal))
    }

    /// A `cir.throw` inside the EH scope `eh` gets its landing pad as unwind successor.
    pub(super) fn unwinding_throw(&mut self, op: Op, eh: EhScope) {
        if let Some(lp) = self.landing_pad(eh) {
            let to_landing_pad = self.func.dfg.make_successor(lp, &[]);
            self.func.dfg.attach_successor(op, to_landing_pad);
        }
    }

    /// The structured, operand-less `cir.resume`: at the end of an EH cleanup region it
    /// leaves the region; in a try's `unwind` handler it continues unwinding.
    pub(super) fn lower_resume(&mut self, terminator: LeavingTerminator) -> Result<(), Diagnostic> {
        match terminator.links.resume_to {
            ResumeTo::CleanupEnd { after, level } => {
                self.func.layout.remove_op(terminator.op);
                self.exit_to(terminator, after, level, &[])
            }
            ResumeTo::Unwind { token, next } => {
                self.func.layout.remove_op(terminator.op);
                self.continue_unwind(terminator.block, token, next, terminator.loc);
                Ok(())
            }
            ResumeTo::Invalid => Err(Diagnostic::error(
                terminator.loc,
                "cir.resume must be in a try's unwind handler or at the end of an eh cleanup",
            )),
        }
    }

    /// The EH block of an EH scope: its EH cleanup block or its dispatch block.
    fn eh_entry(&mut self, idx: FrameIdx) -> Block {
        if let Some(b) = self.eh_state(idx).entry {
            return b;
        }
        let (b, t) = self.new_token_block();
        let is_try = matches!(self.container(idx).data, ContainerData::Try(_));
        let s = self.eh_state(idx);
        s.entry = Some(b);
        s.token = Some(t);
        let area = s.area;
        // A dispatch block is placed after everything else of its try's EH area.
        if !is_try {
            self.place_in_area(area, b);
        }
        b
    }

    /// Where unwinding continues after an EH block of a scope whose parent context has
    /// `eh`: a block taking the token, or `None` to resume out of the function.
    fn next_eh_entry(&mut self, eh: EhScope) -> Option<Block> {
        match eh {
            EhScope::None => None,
            EhScope::Terminate => Some(self.terminate_entry()),
            EhScope::Frame(i) => Some(self.eh_entry(i)),
        }
    }

    /// The unwind destination for a may-throw op whose innermost EH scope is `eh`.
    fn landing_pad(&mut self, eh: EhScope) -> Option<Block> {
        match eh {
            EhScope::None => None,
            EhScope::Terminate => Some(self.terminate_lp()),
            EhScope::Frame(i) => {
                if let Some(lp) = self.eh_state(i).landing_pad {
                    return Some(lp);
                }
                let lp = self.new_block();
                let s = self.eh_state(i);
                s.landing_pad = Some(lp);
                let cleanup = s.has_cleanup && !s.catch_all;
                let area = s.area;
                self.place_in_area(area, lp);
                let token = self.at_end(lp, Loc::NONE).eh_initiate(cleanup);
                let entry = self.eh_entry(i);
                self.at_end(lp, Loc::NONE).br(entry, &[token]);
                Some(lp)
            }
        }
    }

    /// The function-wide block that the field `cache` holds: the first time, `make` makes
    /// it and it goes at the end of the body.
    fn function_wide_block(
        &mut self,
        cache: fn(&mut Self) -> &mut Option<Block>,
        make: impl FnOnce(&mut Self) -> Block,
    ) -> Block {
        if let Some(b) = *cache(self) {
            return b;
        }
        let b = make(self);
        self.func.layout.append_block(self.body, b);
        *cache(self) = Some(b);
        b
    }

    fn terminate_lp(&mut self) -> Block {
        self.function_wide_block(
            |f| &mut f.terminate_lp,
            |f| {
                let b = f.new_block();
                let mut cursor = f.at_end(b, Loc::NONE);
                let token = cursor.eh_initiate(false);
                cursor.eh_terminate(Some(token));
                b
            },
        )
    }

    /// A [`Self::function_wide_block`] that takes an EH token: `end` ends it with the
    /// token.
    fn function_wide_token_block(
        &mut self,
        cache: fn(&mut Self) -> &mut Option<Block>,
        end: impl FnOnce(FuncCursor<'_>, Value),
    ) -> Block {
        self.function_wide_block(cache, |f| {
            let (b, token) = f.new_token_block();
            end(f.at_end(b, Loc::NONE), token);
            b
        })
    }

    fn terminate_entry(&mut self) -> Block {
        self.function_wide_token_block(
            |f| &mut f.terminate_entry,
            |mut cursor, token| {
                cursor.eh_terminate(Some(token));
            },
        )
    }

    fn resume_block(&mut self) -> Block {
        self.function_wide_token_block(
            |f| &mut f.resume_block,
            |mut cursor, token| {
                cursor.resume(Some(token));
            },
        )
    }

    /// Ends `block` by continuing to unwind `token` at `next` (or out of the function).
    fn continue_unwind(&mut self, block: Block, token: Value, next: Option<Block>, loc: Loc) {
        let mut cursor = self.at_end(block, loc);
        match next {
            Some(n) => cursor.br(n, &[token]),
            None => cursor.resume(Some(token)),
        };
    }

    /// Whether a handler region is just `cir.resume` (or empty).
    pub(super) fn is_trivial_resume(&self, region: Region) -> bool {
        let mut blocks = self.func.layout.blocks(region);
        let Some(b) = blocks.next() else { return true };
        if blocks.next().is_some() {
            return false;
        }
        let mut ops = self.func.layout.ops(b);
        match (ops.next(), ops.next()) {
            (Some(op), None) => {
                matches!(self.func.dfg.kind(op), OpKind::Resume)
                    && self.func.dfg.operands(op).is_empty()
            }
            (None, _) => true,
            _ => false,
        }
    }

    /// Fills the EH cleanup block of a cleanup container, if any landing pad needs it.
    pub(super) fn start_eh_cleanup(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let parent_links = self.container(idx).parent_links;
        let s = self.cleanup_state(idx);
        let (Some(ehc), Some(token)) = (s.eh.entry, s.eh.token) else {
            return Ok(());
        };
        let source = match (&s.source, s.eh_region) {
            (CleanupSource::EndCatch(c), _) => CleanupSource::EndCatch(*c),
            (CleanupSource::Region(_), Some(r)) => CleanupSource::Region(r),
            (CleanupSource::Region(r), None) => CleanupSource::Region(*r),
        };
        let after = self.new_block();
        self.func.layout.insert_block_after(after, ehc);
        let cleanup_token = self.at_end(ehc, Loc::NONE).begin_cleanup(token);
        let links = Links::for_eh_region(parent_links, ResumeTo::CleanupEnd { after, level: idx });
        self.run_cleanup_source(idx, source, ehc, after, links);
        self.at_end(after, Loc::NONE).end_cleanup(cleanup_token);
        let next = self.next_eh_entry(parent_links.eh);
        self.continue_unwind(after, token, next, Loc::NONE);
        Ok(())
    }

    /// The try body is done: if anything unwinds to the try, emit its dispatch block and
    /// queue its handlers.
    pub(super) fn finish_try_body(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let parent_links = self.container(idx).parent_links;
        let ContainerData::Try(s) = &mut self.container(idx).data else {
            unreachable!()
        };
        let (Some(dispatch), Some(token)) = (s.eh.entry, s.eh.token) else {
            s.stage = Stage::Done;
            return Ok(());
        };
        let marker = s.marker;
        let try_loc = s.loc;
        let handlers = s.handlers.clone();
        let regions = s.regions.clone();
        self.place_before(dispatch, marker);
        let mut keys = Vec::new();
        let mut targets = Vec::new();
        let mut jobs = Vec::new();
        for (h, &r) in handlers.iter().zip(&regions) {
            if *h == HandlerKey::Unwind && self.is_trivial_resume(r) {
                let next = self.next_eh_entry(parent_links.eh);
                let t = match next {
                    Some(n) => n,
                    None => self.resume_block(),
                };
                targets.push(t);
            } else {
                let (entry, token) = self.new_token_block();
                jobs.push(match h {
                    HandlerKey::Catch(_) | HandlerKey::CatchAll => HandlerJob::Catch {
                        entry,
                        token,
                        region: r,
                    },
                    HandlerKey::Unwind | HandlerKey::Filter(_) | HandlerKey::Terminate => {
                        HandlerJob::Plain {
                            entry,
                            token,
                            region: r,
                            unwind: *h == HandlerKey::Unwind,
                        }
                    }
                });
                targets.push(entry);
            }
            keys.push(*h);
        }
        let terminal = keys.last().is_some_and(|k| {
            matches!(
                k,
                HandlerKey::CatchAll | HandlerKey::Unwind | HandlerKey::Terminate
            )
        });
        if !terminal {
            let t = match self.next_eh_entry(parent_links.eh) {
                Some(n) => n,
                None => self.resume_block(),
            };
            keys.push(HandlerKey::Unwind);
            targets.push(t);
        }
        self.at_end(dispatch, try_loc)
            .eh_dispatch(token, keys, &targets);
        let ContainerData::Try(s) = &mut self.container(idx).data else {
            unreachable!()
        };
        s.jobs = jobs;
        s.next_job = 0;
        Ok(())
    }

    /// Starts the next handler of a try (or finishes the try).
    pub(super) fn next_handler(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let c = self.container(idx);
        let cont = c.cont;
        let parent_links = c.parent_links;
        let ContainerData::Try(s) = &mut c.data else {
            unreachable!()
        };
        let marker = s.marker;
        if s.next_job >= s.jobs.len() {
            s.stage = Stage::Done;
            return Ok(());
        }
        let job = s.jobs[s.next_job];
        s.next_job += 1;
        match job {
            HandlerJob::Catch {
                entry,
                token,
                region,
            } => {
                let r0 = self.open_handler(
                    entry,
                    token,
                    region,
                    marker,
                    "catch handler region is empty",
                )?;
                let first = self.func.layout.first_op(r0);
                if first.is_some_and(|op| matches!(self.func.dfg.kind(op), OpKind::BeginCatch)) {
                    // Upstream's form: the handler begins the catch itself and ends it in
                    // its own cleanups. Its entry block becomes the dispatch's target and
                    // its code is flattened as written.
                    let ops: Vec<Op> = self.func.layout.ops(r0).collect();
                    for op in ops {
                        self.func.layout.remove_op(op);
                        self.func.layout.append_op(op, entry);
                    }
                    let mut blocks = move_region_after(self.func, region, entry);
                    blocks.retain(|&b| b != r0);
                    self.func.layout.remove_block(r0);
                    blocks.insert(0, entry);
                    let my = self.frames.len();
                    self.push_one_region(
                        cont,
                        parent_links,
                        blocks,
                        parent_links,
                        my,
                        ContainerData::Simple,
                    );
                    return Ok(());
                }
                let catch_param =
                    first.filter(|&op| matches!(self.func.dfg.kind(op), OpKind::CatchParam));
                let catch_token = match catch_param {
                    Some(cp) => {
                        let param = self.func.dfg.result(cp);
                        let ty = self.func.dfg.value_type(param);
                        let cp_loc = self.func.dfg.loc(cp);
                        self.func.layout.remove_op(cp);
                        let (catch_token, exception) =
                            self.at_end(entry, cp_loc).begin_catch(token, Some(ty));
                        if let Some(exception) = exception {
                            self.set_alias(param, exception);
                        }
                        // A by-value parameter's copy stays right after the catch begins.
                        if let Some(copy) = self.func.layout.first_op(r0).filter(|&op| {
                            matches!(self.func.dfg.kind(op), OpKind::CopyCatchParam { .. })
                                && self.func.dfg.operands(op).first() == Some(&param)
                        }) {
                            self.func.layout.remove_op(copy);
                            self.func.layout.append_op(copy, entry);
                        }
                        catch_token
                    }
                    None => self.at_end(entry, Loc::NONE).begin_catch(token, None).0,
                };
                let range = self.region_range.get(&region).copied();
                let blocks = move_region_after(self.func, region, entry);
                let first = blocks.first().copied().unwrap_or(cont);
                self.at_end(entry, Loc::NONE).br(first, &[]);
                let my = self.frames.len();
                let (_, parent_catch_all) = self.eh_flags(parent_links.eh);
                let state = CleanupState {
                    source: CleanupSource::EndCatch(catch_token),
                    range,
                    anchor: marker,
                    eh_area: None,
                    normal_entry: None,
                    exits: Vec::new(),
                    eh: EhState::new(true, parent_catch_all, parent_links.area),
                    stage: Stage::Body,
                    eh_region: None,
                };
                let links = Links {
                    normal_cleanup: Some(my),
                    eh: EhScope::Frame(my),
                    ..parent_links
                };
                let data = ContainerData::Cleanup(state);
                self.push_one_region(cont, parent_links, blocks, links, my, data);
            }
            HandlerJob::Plain {
                entry,
                token,
                region,
                unwind,
            } => {
                let r0 =
                    self.open_handler(entry, token, region, marker, "handler region is empty")?;
                let blocks = move_region_after(self.func, region, entry);
                self.at_end(entry, Loc::NONE).br(r0, &[]);
                let resume_to = if unwind {
                    let next = self.next_eh_entry(parent_links.eh);
                    ResumeTo::Unwind { token, next }
                } else {
                    ResumeTo::Invalid
                };
                let links = Links::for_eh_region(parent_links, resume_to);
                let mut worklist = blocks;
                worklist.reverse();
                self.frames.push(Frame::Region(RegionFrame {
                    worklist,
                    links,
                    role: Role::NoExit,
                    switch_owner: None,
                }));
            }
        }
        Ok(())
    }

    /// Places the handler entry block `entry` before `marker` and hands `token` to the
    /// handler `region`, whose entry block it returns (the error `empty_region` where the
    /// region has none).
    fn open_handler(
        &mut self,
        entry: Block,
        token: Value,
        region: Region,
        marker: Block,
        empty_region: &str,
    ) -> Result<Block, Diagnostic> {
        self.place_before(entry, marker);
        let Some(r0) = self.func.layout.entry_block(region) else {
            return Err(Diagnostic::error(Loc::NONE, empty_region));
        };
        self.take_handler_token(r0, token);
        Ok(r0)
    }

    /// A handler region may declare the token as its entry block's parameter; it becomes
    /// the token of the new handler entry block.
    fn take_handler_token(&mut self, r0: Block, token: Value) {
        let params = self.func.dfg.block_params(r0).to_vec();
        for p in params {
            self.set_alias(p, token);
        }
        self.func.dfg.clear_block_params(r0);
    }
}
