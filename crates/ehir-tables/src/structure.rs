//! Structural comparison of `__CxxFrameHandler3` state tables: ehir's own
//! ([`crate::wineh`]) and the ones `llc` writes ([`crate::llc_asm`]) describe the same
//! unwind tree when their canonical forms ([`canonical`]) are equal, whatever order each
//! numbered sibling pads in.
//!
//! The UnwindMap is a forest (each state's parent is its ToState). A TryBlockMap entry
//! marks its TryLow state as a `try` node, which carries its handlers (type, adjectives,
//! whether there is a catch object) and, inline, its CatchLow node (the state of its
//! handlers, a sibling of TryLow in the forest). [`canonical`] first checks the invariants
//! that make this reading valid — states `[TryLow, TryHigh]` are exactly the subtree of
//! TryLow, `[CatchLow, CatchHigh]` exactly the subtree of CatchLow, CatchLow = TryHigh + 1
//! has TryLow's parent, parents precede children — then prints each tree with its children
//! sorted, so isomorphic tables print the same.
//!
//! [`LsdaShape`] is the same idea for the Itanium LSDA: what its call-site entries say
//! (which calls unwind to which landing pad with which first action) independently of
//! code layout, action records with type ids resolved, the typeinfos and filter lists.

use std::collections::BTreeMap;
use std::fmt::Write;

/// A handler as both sides know it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HandlerShape {
    /// TypeDescriptor symbol, `None` for catch-all.
    pub type_descriptor: Option<String>,
    pub adjectives: u32,
    pub has_catch_object: bool,
}

/// A TryBlockMap entry as both sides know it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TryShape {
    pub try_low: i32,
    pub try_high: i32,
    pub catch_high: i32,
    pub handlers: Vec<HandlerShape>,
}

/// The state tables of one function, without anything that names code.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StateTables {
    /// Per state: (ToState, whether it runs a cleanup).
    pub unwind_map: Vec<(i32, bool)>,
    pub try_map: Vec<TryShape>,
}

impl StateTables {
    /// The shape of ehir's tables.
    pub fn from_wineh(tables: &crate::wineh::WinEhTables) -> StateTables {
        StateTables {
            unwind_map: tables
                .unwind_map
                .iter()
                .map(|e| (e.to_state, e.cleanup.is_some()))
                .collect(),
            try_map: tables
                .try_map
                .iter()
                .map(|t| TryShape {
                    try_low: t.try_low,
                    try_high: t.try_high,
                    catch_high: t.catch_high,
                    handlers: t
                        .handlers
                        .iter()
                        .map(|h| HandlerShape {
                            type_descriptor: h.type_descriptor.clone(),
                            adjectives: h.adjectives,
                            has_catch_object: h.catch_object.is_some(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// The canonical form of a function's state tables, or what makes them inconsistent.
pub fn canonical(tables: &StateTables) -> Result<String, String> {
    let n = tables.unwind_map.len() as i32;
    let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for (s, &(to, _)) in tables.unwind_map.iter().enumerate() {
        let s = s as i32;
        if to < -1 || to >= s {
            return Err(format!(
                "state {s} unwinds to {to}, which does not precede it"
            ));
        }
        children.entry(to).or_default().push(s);
    }
    // The states of each subtree (a state and its descendants).
    let subtree = |root: i32| -> Vec<i32> {
        let mut out = vec![root];
        let mut i = 0;
        while i < out.len() {
            if let Some(c) = children.get(&out[i]) {
                out.extend(c.iter().copied());
            }
            i += 1;
        }
        out.sort();
        out
    };
    let mut try_at: BTreeMap<i32, usize> = BTreeMap::new();
    let mut catch_of: BTreeMap<i32, usize> = BTreeMap::new();
    for (i, t) in tables.try_map.iter().enumerate() {
        let catch_low = t.try_high + 1;
        let in_range = |s: i32| (0..n).contains(&s);
        if !(in_range(t.try_low) && in_range(t.try_high) && in_range(t.catch_high))
            || t.try_low > t.try_high
            || catch_low > t.catch_high
        {
            return Err(format!(
                "try {i}: states {}..{}, catch high {} are not valid ranges of {n} states",
                t.try_low, t.try_high, t.catch_high
            ));
        }
        if try_at.insert(t.try_low, i).is_some() {
            return Err(format!(
                "try {i}: two try blocks start at state {}",
                t.try_low
            ));
        }
        catch_of.insert(catch_low, i);
        let want: Vec<i32> = (t.try_low..=t.try_high).collect();
        if subtree(t.try_low) != want {
            return Err(format!(
                "try {i}: states {}..{} are not exactly the states under its TryLow",
                t.try_low, t.try_high
            ));
        }
        let want: Vec<i32> = (catch_low..=t.catch_high).collect();
        if subtree(catch_low) != want {
            return Err(format!(
                "try {i}: states {catch_low}..{} are not exactly the states under its CatchLow",
                t.catch_high
            ));
        }
        let parent = |s: i32| tables.unwind_map[s as usize].0;
        if parent(catch_low) != parent(t.try_low) {
            return Err(format!(
                "try {i}: CatchLow {catch_low} and TryLow {} have different parents",
                t.try_low
            ));
        }
        if tables.unwind_map[t.try_low as usize].1 || tables.unwind_map[catch_low as usize].1 {
            return Err(format!(
                "try {i}: a TryLow or CatchLow state runs a cleanup"
            ));
        }
    }
    // Print bottom-up: a state's form needs its children's forms.
    let mut forms: BTreeMap<i32, String> = BTreeMap::new();
    // The forms of a state's children outside catch handlers, sorted.
    let kids = |s: i32, forms: &BTreeMap<i32, String>| -> String {
        let mut v: Vec<&str> = children
            .get(&s)
            .into_iter()
            .flatten()
            .filter(|c| !catch_of.contains_key(c))
            .map(|c| forms[c].as_str())
            .collect();
        v.sort();
        v.join(" ")
    };
    for s in (0..n).rev() {
        let form = if let Some(&t) = try_at.get(&s) {
            let entry = &tables.try_map[t];
            let mut f = String::from("try[");
            for (k, h) in entry.handlers.iter().enumerate() {
                if k > 0 {
                    f.push_str(", ");
                }
                let _ = write!(
                    f,
                    "{} {}{}",
                    h.type_descriptor.as_deref().unwrap_or("..."),
                    h.adjectives,
                    if h.has_catch_object { " obj" } else { "" }
                );
            }
            let catch_low = entry.try_high + 1;
            let _ = write!(
                f,
                "]({}){{catch({})}}",
                kids(s, &forms),
                kids(catch_low, &forms)
            );
            f
        } else if catch_of.contains_key(&s) {
            // Printed inside its try.
            String::new()
        } else if tables.unwind_map[s as usize].1 {
            format!("cleanup({})", kids(s, &forms))
        } else {
            format!("state({})", kids(s, &forms))
        };
        forms.insert(s, form);
    }
    Ok(kids(-1, &forms))
}

/// What an action record does, with type ids resolved to typeinfo symbols (so the two
/// sides may number their types differently).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ActionShape {
    Cleanup,
    /// A catch of the typeinfo (`None`: catch-all).
    Catch(Option<String>),
    /// An exception specification listing these typeinfos.
    Filter(Vec<String>),
    /// A type filter that does not resolve (an error of the table).
    Invalid(i64),
}

/// One landing pad: the first action of its call-site entries and the functions called by
/// the calls that unwind to it (sorted).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PadShape {
    pub first_action: u64,
    pub calls: Vec<String>,
}

/// An Itanium LSDA without anything that depends on code layout: how both ehir's model
/// ([`crate::lsda::Lsda::shape`]) and llc's table ([`LsdaShape::from_asm`]) are compared.
/// llc places blocks its own way, so call-site entries are compared by what they say, not
/// by their order: which calls unwind to which landing pad with which first action (pads
/// sorted), which functions are called without a landing pad; then the action records (type filters
/// resolved to typeinfos, next displacements), the typeinfos of the type table and the
/// filter lists.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LsdaShape {
    pub landing_pads: Vec<PadShape>,
    /// The functions called by may-throw calls without a landing pad (sorted, each once).
    pub calls_without_pad: Vec<String>,
    /// Action records in table order: (what, self-relative next offset).
    pub actions: Vec<(ActionShape, i64)>,
    /// The typeinfos of the type table (sorted; `None`: catch-all).
    pub types: Vec<Option<String>>,
}

/// Byte size of a ULEB128 value.
fn uleb_size(mut value: u64) -> i64 {
    let mut n = 1;
    while value >= 0x80 {
        value >>= 7;
        n += 1;
    }
    n
}

impl LsdaShape {
    /// Builds a shape from call-site entries (landing pad, first action, callees), action
    /// records (type filter, next), the type table and the filter list.
    pub fn new<P: PartialEq + Clone>(
        entries: &[(Option<P>, u64, Vec<String>)],
        actions: &[(i64, i64)],
        types: &[Option<String>],
        filters: &[u64],
    ) -> LsdaShape {
        let mut pads: Vec<(P, PadShape)> = Vec::new();
        let mut calls_without_pad = Vec::new();
        for (pad, action, calls) in entries {
            match pad {
                None => calls_without_pad.extend(calls.iter().cloned()),
                Some(p) => match pads
                    .iter_mut()
                    .find(|(q, shape)| q == p && shape.first_action == *action)
                {
                    Some((_, shape)) => shape.calls.extend(calls.iter().cloned()),
                    None => pads.push((
                        p.clone(),
                        PadShape {
                            first_action: *action,
                            calls: calls.clone(),
                        },
                    )),
                },
            }
        }
        let mut landing_pads: Vec<PadShape> = pads
            .into_iter()
            .map(|(_, mut shape)| {
                shape.calls.sort();
                shape
            })
            .collect();
        landing_pads.sort();
        calls_without_pad.sort();
        // llc's branch folding merges identical tails (one `_Unwind_Resume` call for
        // several resumes): compare which functions are called, not how often.
        calls_without_pad.dedup();
        let type_name = |id: i64| -> Option<Option<String>> {
            usize::try_from(id - 1)
                .ok()
                .and_then(|i| types.get(i).cloned())
        };
        // Byte offset of each filter-list entry.
        let mut offsets = Vec::with_capacity(filters.len());
        let mut at = 0i64;
        for &id in filters {
            offsets.push(at);
            at += uleb_size(id);
        }
        let resolve = |filter: i64| -> ActionShape {
            match filter {
                0 => ActionShape::Cleanup,
                f if f > 0 => match type_name(f) {
                    Some(t) => ActionShape::Catch(t),
                    None => ActionShape::Invalid(f),
                },
                f => {
                    let Some(start) = offsets.iter().position(|&o| o == -f - 1) else {
                        return ActionShape::Invalid(f);
                    };
                    let mut listed = Vec::new();
                    for &id in filters[start..].iter().take_while(|&&id| id != 0) {
                        match type_name(id as i64) {
                            Some(Some(t)) => listed.push(t),
                            _ => return ActionShape::Invalid(f),
                        }
                    }
                    ActionShape::Filter(listed)
                }
            }
        };
        let actions = actions
            .iter()
            .map(|&(f, next)| (resolve(f), next))
            .collect();
        let mut types = types.to_vec();
        types.sort();
        LsdaShape {
            landing_pads,
            calls_without_pad,
            actions,
            types,
        }
    }

    /// The shape of an LSDA llc wrote; `counts` says which callees count as may-throw
    /// calls (llc's ranges also cover calls that cannot throw).
    pub fn from_asm(lsda: &crate::llc_asm::AsmLsda, counts: &dyn Fn(&str) -> bool) -> LsdaShape {
        let entries: Vec<(Option<String>, u64, Vec<String>)> = lsda
            .call_sites
            .iter()
            .map(|c| {
                let calls = c.calls.iter().filter(|n| counts(n)).cloned().collect();
                (c.landing_pad.clone(), c.action, calls)
            })
            .collect();
        LsdaShape::new(&entries, &lsda.actions, &lsda.types, &lsda.filters)
    }

    /// The shape as text, for reports: `pads [3: f g; 5: h] no pad [i] actions [cleanup/0,
    /// catch _ZTIi/-3] types [_ZTIi]`.
    pub fn render(&self) -> String {
        let mut out = String::from("pads [");
        for (i, pad) in self.landing_pads.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            let _ = write!(out, "{}: {}", pad.first_action, pad.calls.join(" "));
        }
        let _ = write!(
            out,
            "] no pad [{}] actions [",
            self.calls_without_pad.join(" ")
        );
        for (i, (action, next)) in self.actions.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match action {
                ActionShape::Cleanup => out.push_str("cleanup"),
                ActionShape::Catch(t) => {
                    let _ = write!(out, "catch {}", t.as_deref().unwrap_or("null"));
                }
                ActionShape::Filter(list) => {
                    let _ = write!(out, "filter({})", list.join(" "));
                }
                ActionShape::Invalid(f) => {
                    let _ = write!(out, "invalid {f}");
                }
            }
            let _ = write!(out, "/{next}");
        }
        out.push_str("] types [");
        let names: Vec<&str> = self
            .types
            .iter()
            .map(|t| t.as_deref().unwrap_or("null"))
            .collect();
        out.push_str(&names.join(" "));
        out.push(']');
        out
    }
}

/// How an LSDA of ehir's compares with llc's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LsdaComparison {
    /// The same shape.
    Equal,
    /// Everything llc's table says ehir's says too, with the same action and type tables;
    /// ehir's also covers these calls (`callee` or `callee -> pad action N`), which llc
    /// deleted as dead code (a branch on a constant, a resume after a filter that every
    /// exception fails).
    EqualUpToDeadCalls(Vec<String>),
    /// A difference.
    Differ,
}

/// Removes `part` from `whole` (multisets of sorted names); `None` if it is not included.
fn remove_sub_multiset(whole: &[String], part: &[String]) -> Option<Vec<String>> {
    let mut rest = whole.to_vec();
    for name in part {
        let i = rest.iter().position(|n| n == name)?;
        rest.remove(i);
    }
    Some(rest)
}

/// Compares ehir's LSDA shape with llc's ([`LsdaComparison`]).
pub fn compare_lsda(ehir: &LsdaShape, llc: &LsdaShape) -> LsdaComparison {
    if ehir == llc {
        return LsdaComparison::Equal;
    }
    if ehir.actions != llc.actions || ehir.types != llc.types {
        return LsdaComparison::Differ;
    }
    let mut dead = Vec::new();
    for name in &llc.calls_without_pad {
        if !ehir.calls_without_pad.contains(name) {
            return LsdaComparison::Differ;
        }
    }
    for name in &ehir.calls_without_pad {
        if !llc.calls_without_pad.contains(name) {
            dead.push(name.clone());
        }
    }
    let mut unused: Vec<&PadShape> = ehir.landing_pads.iter().collect();
    for pad in &llc.landing_pads {
        let same = unused.iter().position(|p| *p == pad);
        let found = same.or_else(|| {
            unused.iter().position(|p| {
                p.first_action == pad.first_action
                    && remove_sub_multiset(&p.calls, &pad.calls).is_some()
            })
        });
        let Some(i) = found else {
            return LsdaComparison::Differ;
        };
        let ours = unused.remove(i);
        for name in remove_sub_multiset(&ours.calls, &pad.calls).unwrap_or_default() {
            dead.push(format!("{name} -> pad action {}", ours.first_action));
        }
    }
    for pad in unused {
        for name in &pad.calls {
            dead.push(format!("{name} -> pad action {}", pad.first_action));
        }
    }
    LsdaComparison::EqualUpToDeadCalls(dead)
}
