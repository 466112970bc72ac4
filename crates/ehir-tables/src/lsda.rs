//! The Itanium LSDA (`.gcc_except_table`) of an Itanium-phase function, built the way
//! LLVM's `EHStreamer` builds it: the call-site table, the action table and the type table
//! (with the exception-specification filter list).
//!
//! - Landing pads are the blocks that begin with `cir.eh.landingpad`. Each pad's type ids
//!   follow `MachineFunction::addLandingPad`: `0` first when the pad has `cleanup` and
//!   clauses, then the clauses in reverse order (a catch clause is the 1-based index of its
//!   typeinfo in the type table, `null` included; a filter is a negative filter id).
//!   Typeinfos and filters are numbered in order of first use, scanning the pads in block
//!   order (LLVM scans them in instruction-selection order, which can permute the ids).
//! - The action table follows `EHStreamer::computeActionsTable`: pads sorted by their type
//!   id lists; a pad whose list starts like the previous pad's shares that part of the
//!   previous chain; each action record is `(sleb128 type filter, sleb128 self-relative
//!   offset of the next record or 0)`; a pad's first action is the 1-based byte offset of
//!   its chain's head, 0 for a cleanup-only pad.
//! - The call-site table has one entry per run of consecutive may-throw operations (in
//!   block order) that unwind to the same landing pad with the same first action; runs of
//!   may-throw operations without a landing pad (plain calls, `cir.throw` without unwind
//!   destination, `cir.resume.flat`, which calls `_Unwind_Resume`) get an entry with no
//!   landing pad, as `EHStreamer::computeCallSiteTable` emits for such gaps. Offsets are
//!   not modelled: entries name the first and last operation of their run (and list the
//!   run's operations). [`module_function_lsda`] (what `ehir tables` uses) counts a plain
//!   call as LLVM does: may-throw unless its callee is declared `nothrow`, whatever the
//!   call site says; [`function_lsda`], without the module, goes by the call site.
//! - [`Lsda::action_bytes`] and [`Lsda::filter_bytes`] encode the action table (SLEB128
//!   pairs) and the filter list (ULEB128) as the LSDA stores them; [`render_bytes`] shows
//!   them (`ehir tables --abi itanium --bytes`).

use crate::TablesError;
use ehir_core::printer::Names;
use ehir_core::{
    Block, Diagnostic, ExtraData, Function, LandingPadClause, Module, ModuleCtx, Op, OpKind, Symbol,
};
use std::collections::BTreeMap;

/// One landing pad.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LandingPad {
    pub block: Block,
    /// LLVM's `LandingPadInfo::TypeIds`.
    pub type_ids: Vec<i32>,
    /// 1-based byte offset of the head of its action chain (0: cleanup only).
    pub first_action: u32,
}

/// One action record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// 1-based byte offset of the record in the action table.
    pub offset: u32,
    /// > 0: catch of type id; 0: cleanup; < 0: filter (byte offset into the filter list).
    pub type_filter: i32,
    /// Self-relative displacement to the next record, 0 for the end of the chain.
    pub next: i32,
}

/// One call-site entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub first: Op,
    pub last: Op,
    /// Every may-throw operation of the run, `first` to `last`.
    pub ops: Vec<Op>,
    pub landing_pad: Option<Block>,
    /// 1-based offset of the first action, 0 for none.
    pub action: u32,
}

/// The LSDA of one function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Lsda {
    pub call_sites: Vec<CallSite>,
    pub actions: Vec<Action>,
    pub landing_pads: Vec<LandingPad>,
    /// Type id `i + 1` is `types[i]` (`None`: the null typeinfo of a catch-all).
    pub types: Vec<Option<Symbol>>,
    /// The filter list: type ids of each filter followed by 0.
    pub filter_ids: Vec<u32>,
}

fn sleb128_size(mut v: i64) -> u32 {
    let mut n = 0;
    loop {
        let byte = v & 0x7f;
        v >>= 7;
        n += 1;
        if (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0) {
            return n;
        }
    }
}

fn uleb128_size(mut v: u64) -> u32 {
    let mut n = 0;
    loop {
        v >>= 7;
        n += 1;
        if v == 0 {
            return n;
        }
    }
}

struct Builder {
    types: Vec<Option<Symbol>>,
    filter_ids: Vec<u32>,
    filter_ends: Vec<usize>,
}

impl Builder {
    fn type_id(&mut self, ti: Option<Symbol>) -> i32 {
        if let Some(i) = self.types.iter().position(|&t| t == ti) {
            return i as i32 + 1;
        }
        self.types.push(ti);
        self.types.len() as i32
    }

    /// `MachineFunction::getFilterIDFor`.
    fn filter_id(&mut self, ids: &[u32]) -> i32 {
        for &end in &self.filter_ends {
            let (mut i, mut j) = (end, ids.len());
            let mut same = true;
            while i > 0 && j > 0 {
                i -= 1;
                j -= 1;
                if self.filter_ids[i] != ids[j] {
                    same = false;
                    break;
                }
            }
            if same && j == 0 {
                return -(1 + i as i32);
            }
        }
        let id = -(1 + self.filter_ids.len() as i32);
        self.filter_ids.extend_from_slice(ids);
        self.filter_ends.push(self.filter_ids.len());
        self.filter_ids.push(0);
        id
    }
}

/// Builds the LSDA of an Itanium-phase function (`None`: no landing pads, no LSDA). A plain
/// call counts as may-throw by its call-site flag; [`module_function_lsda`] applies LLVM's
/// rule instead. The function must verify (it has no module context to be verified
/// here; [`crate::function_tables`] verifies it first).
pub fn function_lsda(func: &Function) -> Result<Option<Lsda>, TablesError> {
    function_lsda_with(func, &|_| None)
}

/// [`function_lsda`] for a function of `module`, counting plain calls as LLVM's
/// `EHStreamer::callToNoUnwindFunction` does: a call may throw unless its callee is a
/// function declared `nothrow` (emitted `nounwind`), whatever the call site says (an
/// indirect call may always throw). The function is verified first
/// ([`TablesError::Input`]).
pub fn module_function_lsda(module: &Module, func: &Function) -> Result<Option<Lsda>, TablesError> {
    crate::verify_then(&module.ctx, func, || {
        verified_module_function_lsda(module, func)
    })
}

/// [`module_function_lsda`] of a function already verified.
pub(crate) fn verified_module_function_lsda(
    module: &Module,
    func: &Function,
) -> Result<Option<Lsda>, TablesError> {
    let callee_nothrow = |callee: Symbol| {
        module
            .function_by_name(callee)
            .map(|id| module.functions[id].nothrow)
    };
    function_lsda_with(func, &callee_nothrow)
}

/// Whether a plain call enters the call-site table: by its callee's declaration when
/// `callee_nothrow` knows the callee, else by the call site's flag.
fn call_may_throw(kind: &OpKind, callee_nothrow: &dyn Fn(Symbol) -> Option<bool>) -> bool {
    let OpKind::Call { callee, .. } = kind else {
        return false;
    };
    match callee.expand() {
        Some(symbol) => match callee_nothrow(symbol) {
            Some(nothrow) => !nothrow,
            None => kind.may_throw(),
        },
        None => true,
    }
}

fn function_lsda_with(
    func: &Function,
    callee_nothrow: &dyn Fn(Symbol) -> Option<bool>,
) -> Result<Option<Lsda>, TablesError> {
    let Some(body) = func.body else {
        return Ok(None);
    };
    let blocks: Vec<Block> = func.layout.blocks(body).collect();
    let mut builder = Builder {
        types: Vec::new(),
        filter_ids: Vec::new(),
        filter_ends: Vec::new(),
    };
    let mut pads: Vec<LandingPad> = Vec::new();
    for &b in &blocks {
        let Some(first) = func.layout.first_op(b) else {
            continue;
        };
        let OpKind::EhLandingPad { cleanup, clauses } = *func.dfg.kind(first) else {
            continue;
        };
        let clauses = match func.dfg.extra(clauses) {
            ExtraData::LandingPadClauses(c) => c.clone(),
            _ => Vec::new(),
        };
        let mut type_ids = Vec::new();
        if cleanup && !clauses.is_empty() {
            type_ids.push(0);
        }
        for clause in clauses.iter().rev() {
            match clause {
                LandingPadClause::Catch(ti) => type_ids.push(builder.type_id(*ti)),
                LandingPadClause::Filter(list) => {
                    let ids: Vec<u32> = list
                        .iter()
                        .map(|&t| builder.type_id(Some(t)) as u32)
                        .collect();
                    type_ids.push(builder.filter_id(&ids));
                }
            }
        }
        pads.push(LandingPad {
            block: b,
            type_ids,
            first_action: 0,
        });
    }
    if pads.is_empty() {
        return Ok(None);
    }
    // Filter offsets: byte offsets (negative, from -1) into the uleb128 filter list.
    let mut filter_offsets = Vec::with_capacity(builder.filter_ids.len());
    let mut offset: i32 = -1;
    for &id in &builder.filter_ids {
        filter_offsets.push(offset);
        offset -= uleb128_size(u64::from(id)) as i32;
    }
    // Actions, pads sorted by their type id lists (ties keep block order).
    let mut order: Vec<usize> = (0..pads.len()).collect();
    order.sort_by(|&a, &b| pads[a].type_ids.cmp(&pads[b].type_ids));
    let mut actions: Vec<Action> = Vec::new();
    let mut size: u32 = 0;
    let mut prev: Option<usize> = None;
    // The action index of each position of the previous pad's list.
    let mut prev_chain: Vec<usize> = Vec::new();
    let mut prev_first = 0u32;
    for &p in &order {
        let ids = pads[p].type_ids.clone();
        let shared = match prev {
            Some(q) => pads[q]
                .type_ids
                .iter()
                .zip(&ids)
                .take_while(|(a, b)| a == b)
                .count(),
            None => 0,
        };
        if ids.is_empty() {
            pads[p].first_action = 0;
            prev_chain.clear();
        } else if shared == ids.len() {
            pads[p].first_action = prev_first;
        } else {
            let mut chain: Vec<usize> = prev_chain[..shared].to_vec();
            let mut previous = chain.last().copied();
            for &id in &ids[shared..] {
                let value = if id < 0 {
                    *filter_offsets.get((-1 - id) as usize).ok_or_else(|| {
                        TablesError::Ir(Diagnostic::error(func.loc, "unknown filter id"))
                    })?
                } else {
                    id
                };
                let start = size;
                let next_field = start + sleb128_size(i64::from(value));
                let next = match previous {
                    Some(q) => actions[q].offset as i32 - 1 - next_field as i32,
                    None => 0,
                };
                size = next_field + sleb128_size(i64::from(next));
                actions.push(Action {
                    offset: start + 1,
                    type_filter: value,
                    next,
                });
                previous = Some(actions.len() - 1);
                chain.push(actions.len() - 1);
            }
            pads[p].first_action = actions[*chain.last().expect("non-empty")].offset;
            prev_chain = chain;
        }
        prev_first = pads[p].first_action;
        prev = Some(p);
    }
    // Call sites. Each landing pad's first action, by its block (a lookup per call site
    // instead of a scan of the pads: linear in deep chains of pads).
    let mut pad_action: BTreeMap<Block, u32> = BTreeMap::new();
    for pad in &pads {
        pad_action.entry(pad.block).or_insert(pad.first_action);
    }
    let mut call_sites: Vec<CallSite> = Vec::new();
    for &b in &blocks {
        for op in func.layout.ops(b) {
            let kind = func.dfg.kind(op);
            let unwind = match kind {
                OpKind::TryCall { .. } => func.dfg.successor_blocks(op).nth(1),
                OpKind::Throw { .. } => func.dfg.successor_blocks(op).next(),
                OpKind::Call { .. } if call_may_throw(kind, callee_nothrow) => None,
                OpKind::ResumeFlat => None,
                _ => continue,
            };
            let (landing_pad, action) = match unwind {
                Some(dest) => {
                    let first_action = *pad_action.get(&dest).ok_or_else(|| {
                        TablesError::Ir(Diagnostic::error(
                            func.dfg.loc(op),
                            "the unwind destination of this call is not a landing pad",
                        ))
                    })?;
                    (Some(dest), first_action)
                }
                None => (None, 0),
            };
            match call_sites.last_mut() {
                Some(last) if last.landing_pad == landing_pad && last.action == action => {
                    last.last = op;
                    last.ops.push(op);
                }
                _ => call_sites.push(CallSite {
                    first: op,
                    last: op,
                    ops: vec![op],
                    landing_pad,
                    action,
                }),
            }
        }
    }
    Ok(Some(Lsda {
        call_sites,
        actions,
        landing_pads: pads,
        types: builder.types,
        filter_ids: builder.filter_ids,
    }))
}

fn describe_op(ctx: &ModuleCtx, func: &Function, names: &Names, op: Op) -> String {
    let block = func
        .layout
        .op_block(op)
        .map(|b| names.block(b))
        .unwrap_or_default();
    let kind = func.dfg.kind(op);
    match kind.callee() {
        Some(c) => format!("{block} {} @{}", kind.name(), ctx.name(c)),
        None => format!("{block} {}", kind.name()),
    }
}

/// Renders an LSDA as text (see the crate docs for the format).
pub fn render(ctx: &ModuleCtx, func: &Function, lsda: &Lsda) -> String {
    use std::fmt::Write;
    let summary = format!(
        "{} call sites, {} actions, {} types",
        lsda.call_sites.len(),
        lsda.actions.len(),
        lsda.types.len()
    );
    crate::render_function_table(ctx, func, &summary, |names, out| {
        out.push_str("  call sites:\n");
        for cs in &lsda.call_sites {
            let range = if cs.first == cs.last {
                describe_op(ctx, func, names, cs.first)
            } else {
                format!(
                    "{} .. {}",
                    describe_op(ctx, func, names, cs.first),
                    describe_op(ctx, func, names, cs.last)
                )
            };
            match cs.landing_pad {
                Some(lp) => {
                    let _ = writeln!(
                        out,
                        "    {range}: landing pad {}, action {}",
                        names.block(lp),
                        cs.action
                    );
                }
                None => {
                    let _ = writeln!(out, "    {range}: no landing pad");
                }
            }
        }
        out.push_str("  landing pads:\n");
        for lp in &lsda.landing_pads {
            let ids: Vec<String> = lp.type_ids.iter().map(|i| i.to_string()).collect();
            let _ = writeln!(
                out,
                "    {}: type ids [{}], first action {}",
                names.block(lp.block),
                ids.join(", "),
                lp.first_action
            );
        }
        out.push_str("  actions:\n");
        for a in &lsda.actions {
            let what = match a.type_filter {
                0 => "cleanup".to_string(),
                t if t > 0 => {
                    let name = match lsda.types.get(t as usize - 1) {
                        Some(Some(s)) => format!("@{}", ctx.name(*s)),
                        _ => "null".to_string(),
                    };
                    format!("catch type {t} ({name})")
                }
                t => format!("filter {t}"),
            };
            let next = if a.next == 0 {
                "end".to_string()
            } else {
                // The next field starts right after the type filter.
                let target = a.offset as i32 - 1
                    + sleb128_size(i64::from(a.type_filter)) as i32
                    + a.next
                    + 1;
                format!("next {} (-> {target})", a.next)
            };
            let _ = writeln!(out, "    {}: {what}, {next}", a.offset);
        }
        out.push_str("  types:\n");
        for (i, t) in lsda.types.iter().enumerate() {
            let name = match t {
                Some(s) => format!("@{}", ctx.name(*s)),
                None => "null (catch-all)".to_string(),
            };
            let _ = writeln!(out, "    {}: {name}", i + 1);
        }
        if !lsda.filter_ids.is_empty() {
            let ids: Vec<String> = lsda.filter_ids.iter().map(|i| i.to_string()).collect();
            let _ = writeln!(out, "  filters: [{}]", ids.join(", "));
        }
    })
}

/// Appends the ULEB128 encoding of `value`.
pub fn encode_uleb128(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Appends the SLEB128 encoding of `value`.
pub fn encode_sleb128(out: &mut Vec<u8>, mut value: i64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        let done = (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0);
        if done {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

impl Lsda {
    /// The action table as the LSDA stores it: each record's type filter and next
    /// displacement as SLEB128.
    pub fn action_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for a in &self.actions {
            encode_sleb128(&mut out, i64::from(a.type_filter));
            encode_sleb128(&mut out, i64::from(a.next));
        }
        out
    }

    /// The exception-specification list after the type table base: ULEB128 type ids.
    pub fn filter_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for &id in &self.filter_ids {
            encode_uleb128(&mut out, u64::from(id));
        }
        out
    }

    /// The shape compared with llc's tables ([`crate::structure::LsdaShape`]).
    pub fn shape(&self, ctx: &ModuleCtx, func: &Function) -> crate::structure::LsdaShape {
        let entries: Vec<(Option<Block>, u64, Vec<String>)> = self
            .call_sites
            .iter()
            .map(|c| {
                let calls = c.ops.iter().map(|&op| llvm_callee(ctx, func, op)).collect();
                (c.landing_pad, u64::from(c.action), calls)
            })
            .collect();
        crate::structure::LsdaShape::new(
            &entries,
            &self
                .actions
                .iter()
                .map(|a| (i64::from(a.type_filter), i64::from(a.next)))
                .collect::<Vec<_>>(),
            &self
                .types
                .iter()
                .map(|t| t.map(|s| ctx.name(s).to_string()))
                .collect::<Vec<_>>(),
            &self
                .filter_ids
                .iter()
                .map(|&f| u64::from(f))
                .collect::<Vec<_>>(),
        )
    }
}

/// The function the LLVM IR of a may-throw operation calls: the callee of a call
/// (`<indirect>` without one), `__cxa_throw`/`__cxa_rethrow` for a throw, `_Unwind_Resume`
/// for `cir.resume.flat` (what `resume` becomes).
pub fn llvm_callee(ctx: &ModuleCtx, func: &Function, op: Op) -> String {
    let kind = func.dfg.kind(op);
    match kind {
        OpKind::Throw { .. } if func.dfg.operands(op).is_empty() => "__cxa_rethrow".to_string(),
        OpKind::Throw { .. } => "__cxa_throw".to_string(),
        OpKind::ResumeFlat => "_Unwind_Resume".to_string(),
        _ => match kind.callee() {
            Some(c) => ctx.name(c).to_string(),
            None => "<indirect>".to_string(),
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    parts.join(" ")
}

/// Writes the line `  <label> (<count>): <hex bytes>`.
fn byte_line(out: &mut String, label: &str, bytes: &[u8]) {
    use std::fmt::Write;
    let _ = writeln!(out, "  {label} ({}): {}", bytes.len(), hex(bytes));
}

/// Renders ehir's encoding of the action table, the type table and the filter list (the
/// `--bytes` addition to [`render`]): each action record's SLEB128 bytes at its offset;
/// the type table as the 4-byte `DW_EH_PE_indirect | pcrel | sdata4` entries llc uses,
/// last type id first, ending at the type table base; then the ULEB128 filter list.
pub fn render_bytes(ctx: &ModuleCtx, lsda: &Lsda) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    byte_line(&mut out, "action table bytes", &lsda.action_bytes());
    for a in &lsda.actions {
        let mut record = Vec::new();
        encode_sleb128(&mut record, i64::from(a.type_filter));
        encode_sleb128(&mut record, i64::from(a.next));
        let _ = writeln!(
            out,
            "    {}: {:<12} type filter {}, next {}",
            a.offset,
            hex(&record),
            a.type_filter,
            a.next
        );
    }
    let _ = writeln!(
        out,
        "  type table bytes ({}, 4-byte indirect pcrel sdata4 entries, last id first):",
        lsda.types.len() * 4
    );
    for (i, t) in lsda.types.iter().enumerate().rev() {
        match t {
            Some(s) => {
                let _ = writeln!(
                    out,
                    "    type {}: indirect pcrel32 -> @{}",
                    i + 1,
                    ctx.name(*s)
                );
            }
            None => {
                let _ = writeln!(out, "    type {}: 00 00 00 00 (null)", i + 1);
            }
        }
    }
    if !lsda.filter_ids.is_empty() {
        byte_line(
            &mut out,
            "filter bytes after the type table base",
            &lsda.filter_bytes(),
        );
    }
    out
}

#[cfg(test)]
mod encoding_tests {
    use super::*;

    #[test]
    fn leb128_encodings_follow_the_dwarf_examples() {
        let uleb = |v| {
            let mut out = Vec::new();
            encode_uleb128(&mut out, v);
            out
        };
        let sleb = |v| {
            let mut out = Vec::new();
            encode_sleb128(&mut out, v);
            out
        };
        assert_eq!(uleb(2), [2]);
        assert_eq!(uleb(127), [127]);
        assert_eq!(uleb(128), [0x80, 1]);
        assert_eq!(uleb(12857), [0xb9, 0x64]);
        assert_eq!(sleb(2), [2]);
        assert_eq!(sleb(-2), [0x7e]);
        assert_eq!(sleb(-3), [125]);
        assert_eq!(sleb(127), [0xff, 0]);
        assert_eq!(sleb(-127), [0x81, 0x7f]);
        assert_eq!(sleb(-128), [0x80, 0x7f]);
        for v in [0i64, 1, 63, 64, -64, -65, 1000, -1000] {
            assert_eq!(sleb(v).len() as u32, sleb128_size(v));
        }
        for v in [0u64, 127, 128, 16383, 16384] {
            assert_eq!(uleb(v).len() as u32, uleb128_size(v));
        }
    }
}
