//! Reads the `__CxxFrameHandler3` tables out of the assembly `llc
//! -mtriple=x86_64-pc-windows-msvc -filetype=asm` writes: per function `F`, the FuncInfo
//! `$cppxdata$F` (MaxState, NumTryBlocks, ...), `$stateUnwindMap$F` (ToState, Action pairs),
//! `$tryMap$F` (TryLow, TryHigh, CatchHigh, NumCatches, HandlerArray) and each
//! `$handlerMap$N$F` (Adjectives, Type, CatchObjOffset, Handler, ParentFrameOffset).
//!
//! Every field is a `.long` line that llc annotates with the field's name in a comment;
//! the reader checks the names, so a format change is an error rather than a misreading.

use crate::structure::{HandlerShape, StateTables, TryShape};
use std::collections::BTreeMap;

/// One `.long` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Int(i64),
    /// `SYM@IMGREL` (an image-relative reference).
    ImageRel(String),
}

/// The tables of one function, as written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AsmTables {
    pub max_state: i64,
    /// (ToState, Action: the cleanup funclet symbol, if any).
    pub unwind_map: Vec<(i64, Option<String>)>,
    pub try_map: Vec<AsmTry>,
}

/// One TryBlockMap entry, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmTry {
    pub try_low: i64,
    pub try_high: i64,
    pub catch_high: i64,
    pub handlers: Vec<AsmHandler>,
}

/// One HandlerType entry, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmHandler {
    pub adjectives: i64,
    /// The TypeDescriptor symbol, `None` for catch-all (type 0).
    pub type_descriptor: Option<String>,
    /// Frame offset of the catch object, 0 for none.
    pub catch_object_offset: i64,
    /// The catch funclet symbol.
    pub handler: String,
}

impl AsmTables {
    /// The shape compared by [`crate::structure::canonical`].
    pub fn shape(&self) -> StateTables {
        StateTables {
            unwind_map: self
                .unwind_map
                .iter()
                .map(|(to, action)| (*to as i32, action.is_some()))
                .collect(),
            try_map: self
                .try_map
                .iter()
                .map(|t| TryShape {
                    try_low: t.try_low as i32,
                    try_high: t.try_high as i32,
                    catch_high: t.catch_high as i32,
                    handlers: t
                        .handlers
                        .iter()
                        .map(|h| HandlerShape {
                            type_descriptor: h.type_descriptor.clone(),
                            adjectives: h.adjectives as u32,
                            has_catch_object: h.catch_object_offset != 0,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

fn parse_word(text: &str) -> Result<Word, String> {
    let text = text.trim();
    if let Some(sym) = text.strip_suffix("@IMGREL") {
        let sym = sym.trim();
        let sym = sym
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(sym);
        return Ok(Word::ImageRel(unquote(sym.trim()).to_string()));
    }
    text.parse::<i64>()
        .map(Word::Int)
        .map_err(|_| format!("cannot read the value '{text}'"))
}

/// The labelled `.long` lists of an assembly file: label → [(value, field comment)].
fn labelled_words(asm: &str) -> BTreeMap<String, Vec<(Word, String)>> {
    let mut out: BTreeMap<String, Vec<(Word, String)>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in asm.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let is_label = trimmed.ends_with(':')
            && (!trimmed.contains(char::is_whitespace)
                || trimmed.starts_with('"') && trimmed.ends_with("\":"));
        if is_label {
            let label = &trimmed[..trimmed.len() - 1];
            current = Some(unquote(label).to_string());
            continue;
        }
        let Some(rest) = trimmed.strip_prefix(".long") else {
            // Any other directive ends a table.
            if trimmed.starts_with('.') && !trimmed.starts_with(".p2align") {
                current = None;
            }
            continue;
        };
        let Some(label) = &current else { continue };
        let (value, comment) = match rest.split_once('#') {
            Some((v, c)) => (v, c.trim().to_string()),
            None => (rest, String::new()),
        };
        if let Ok(word) = parse_word(value) {
            out.entry(label.clone()).or_default().push((word, comment));
        }
    }
    out
}

/// Reads the fields of a table as consecutive records of `fields` (checking the comment
/// llc puts on each).
fn records<'a>(
    words: &'a [(Word, String)],
    fields: &[&str],
    table: &str,
) -> Result<Vec<&'a [(Word, String)]>, String> {
    if !words.len().is_multiple_of(fields.len()) {
        return Err(format!(
            "{table}: {} values is not a whole number of {}-field records",
            words.len(),
            fields.len()
        ));
    }
    let recs: Vec<&[(Word, String)]> = words.chunks(fields.len()).collect();
    for r in &recs {
        for (i, (_, comment)) in r.iter().enumerate() {
            if comment != fields[i] {
                return Err(format!(
                    "{table}: expected field {} but found '{comment}'",
                    fields[i]
                ));
            }
        }
    }
    Ok(recs)
}

fn int(word: &Word, what: &str) -> Result<i64, String> {
    match word {
        Word::Int(v) => Ok(*v),
        Word::ImageRel(s) => Err(format!("{what}: expected a number, found {s}@IMGREL")),
    }
}

/// Every function with `__CxxFrameHandler3` tables in an llc assembly listing, by name.
pub fn parse(asm: &str) -> Result<BTreeMap<String, AsmTables>, String> {
    let words = labelled_words(asm);
    let mut out = BTreeMap::new();
    for (label, list) in &words {
        let Some(func) = label.strip_prefix("$cppxdata$") else {
            continue;
        };
        let field = |name: &str| -> Result<&Word, String> {
            list.iter()
                .find(|(_, c)| c == name)
                .map(|(w, _)| w)
                .ok_or_else(|| format!("$cppxdata${func}: no {name} field"))
        };
        let max_state = int(field("MaxState")?, "MaxState")?;
        let num_tries = int(field("NumTryBlocks")?, "NumTryBlocks")?;
        let mut tables = AsmTables {
            max_state,
            ..AsmTables::default()
        };
        if max_state > 0 {
            let name = format!("$stateUnwindMap${func}");
            let list = words.get(&name).ok_or_else(|| format!("no {name} table"))?;
            for r in records(list, &["ToState", "Action"], &name)? {
                let to = int(&r[0].0, "ToState")?;
                let action = match &r[1].0 {
                    Word::Int(0) => None,
                    Word::ImageRel(s) => Some(s.clone()),
                    Word::Int(v) => return Err(format!("{name}: unexpected action {v}")),
                };
                tables.unwind_map.push((to, action));
            }
            if tables.unwind_map.len() as i64 != max_state {
                return Err(format!(
                    "{name}: {} entries but MaxState is {max_state}",
                    tables.unwind_map.len()
                ));
            }
        }
        if num_tries > 0 {
            let name = format!("$tryMap${func}");
            let list = words.get(&name).ok_or_else(|| format!("no {name} table"))?;
            let fields = [
                "TryLow",
                "TryHigh",
                "CatchHigh",
                "NumCatches",
                "HandlerArray",
            ];
            for r in records(list, &fields, &name)? {
                let num_catches = int(&r[3].0, "NumCatches")?;
                let Word::ImageRel(handler_label) = &r[4].0 else {
                    return Err(format!("{name}: HandlerArray is not a symbol"));
                };
                let hlist = words
                    .get(handler_label)
                    .ok_or_else(|| format!("no {handler_label} table"))?;
                let hfields = [
                    "Adjectives",
                    "Type",
                    "CatchObjOffset",
                    "Handler",
                    "ParentFrameOffset",
                ];
                let mut handlers = Vec::new();
                for h in records(hlist, &hfields, handler_label)? {
                    handlers.push(AsmHandler {
                        adjectives: int(&h[0].0, "Adjectives")?,
                        type_descriptor: match &h[1].0 {
                            Word::Int(0) => None,
                            Word::ImageRel(s) => Some(s.clone()),
                            Word::Int(v) => {
                                return Err(format!("{handler_label}: unexpected type {v}"));
                            }
                        },
                        catch_object_offset: int(&h[2].0, "CatchObjOffset")?,
                        handler: match &h[3].0 {
                            Word::ImageRel(s) => s.clone(),
                            Word::Int(v) => v.to_string(),
                        },
                    });
                }
                if handlers.len() as i64 != num_catches {
                    return Err(format!(
                        "{handler_label}: {} handlers but NumCatches is {num_catches}",
                        handlers.len()
                    ));
                }
                tables.try_map.push(AsmTry {
                    try_low: int(&r[0].0, "TryLow")?,
                    try_high: int(&r[1].0, "TryHigh")?,
                    catch_high: int(&r[2].0, "CatchHigh")?,
                    handlers,
                });
            }
            if tables.try_map.len() as i64 != num_tries {
                return Err(format!(
                    "{name}: {} entries but NumTryBlocks is {num_tries}",
                    tables.try_map.len()
                ));
            }
        }
        out.insert(func.to_string(), tables);
    }
    Ok(out)
}
