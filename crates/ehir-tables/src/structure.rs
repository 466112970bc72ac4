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
    for s in (0..n).rev() {
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
    let mut roots: Vec<&str> = children
        .get(&-1)
        .into_iter()
        .flatten()
        .filter(|c| !catch_of.contains_key(c))
        .map(|c| forms[c].as_str())
        .collect();
    roots.sort();
    Ok(roots.join(" "))
}
