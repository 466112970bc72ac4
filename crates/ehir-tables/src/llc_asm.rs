//! Reads the `__CxxFrameHandler3` tables out of the assembly `llc
//! -mtriple=x86_64-pc-windows-msvc -filetype=asm` writes: per function `F`, the FuncInfo
//! `$cppxdata$F` (MaxState, NumTryBlocks, ...), `$stateUnwindMap$F` (ToState, Action pairs),
//! `$tryMap$F` (TryLow, TryHigh, CatchHigh, NumCatches, HandlerArray) and each
//! `$handlerMap$N$F` (Adjectives, Type, CatchObjOffset, Handler, ParentFrameOffset).
//!
//! Every field is a `.long` line that llc annotates with the field's name in a comment;
//! the reader checks the names, so a format change is an error rather than a misreading.
//!
//! [`parse_itanium`] reads the Itanium LSDAs (`GCC_except_table`) of `llc
//! -relocation-model=pic` for x86-64 ELF: per function, its call-site records (landing pad
//! label and first action), action records (decoded from the SLEB128 bytes llc writes as
//! `.byte`/`.ascii`), type table and filter list ([`AsmLsda`]).

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

// ---------------------------------------------------------------------------------------
// Itanium: the `GCC_except_table` LSDAs of `llc -relocation-model=pic` for x86-64 ELF.
// ---------------------------------------------------------------------------------------

/// One call-site record of an llc LSDA, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmCallSite {
    /// The label of the landing pad (`.Ltmp2`), `None` for "has no landing pad".
    pub landing_pad: Option<String>,
    /// The functions called (`call`, or `jmp` to a function) between the range's start
    /// and end labels in the function's code (`<indirect>` for a call through a register).
    pub calls: Vec<String>,
    /// The 1-based byte offset of the first action, 0 for none.
    pub action: u64,
}

/// The LSDA of one function, as llc wrote it into `GCC_except_table`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AsmLsda {
    pub call_sites: Vec<AsmCallSite>,
    /// Action records: (type filter, self-relative next offset), decoded from SLEB128.
    pub actions: Vec<(i64, i64)>,
    /// The type table in type-id order (id `i + 1` is `types[i]`; `None`: the null
    /// typeinfo of a catch-all). Typeinfo symbols without llc's `.L...DW.stub` wrapping.
    pub types: Vec<Option<String>>,
    /// The exception-specification list (ULEB128 type ids, each list ending in 0).
    pub filters: Vec<u64>,
}

/// The bytes of a `.byte N` or `.ascii "..."` directive (how llc writes LEB128 constants).
fn directive_bytes(line: &str) -> Option<Vec<u8>> {
    let code = line.split_once('#').map_or(line, |(c, _)| c).trim();
    if let Some(value) = code.strip_prefix(".byte") {
        let value = value.trim();
        let parsed = if let Some(hex) = value.strip_prefix("0x") {
            u8::from_str_radix(hex, 16).ok()
        } else {
            value.parse::<u8>().ok()
        };
        return parsed.map(|b| vec![b]);
    }
    let text = code.strip_prefix(".ascii")?.trim();
    let text = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = Vec::new();
    let mut chars = text.bytes().peekable();
    while let Some(c) = chars.next() {
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let mut octal = 0u32;
        let mut digits = 0;
        while digits < 3 {
            match chars.peek() {
                Some(d @ b'0'..=b'7') => {
                    octal = octal * 8 + u32::from(d - b'0');
                    chars.next();
                    digits += 1;
                }
                _ => break,
            }
        }
        if digits > 0 {
            out.push(octal as u8);
            continue;
        }
        match chars.next()? {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            other => out.push(other),
        }
    }
    Some(out)
}

/// Decodes the 7-bit groups of one LEB128 value from `bytes` at `at`: the bits (those
/// beyond 64 dropped), the number of bits read and the last byte.
fn read_leb_groups(bytes: &[u8], at: &mut usize) -> Option<(u64, u32, u8)> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*at)?;
        *at += 1;
        if shift < 64 {
            value |= u64::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            return Some((value, shift, byte));
        }
    }
}

/// Decodes one ULEB128 value from `bytes` at `at`.
fn read_uleb(bytes: &[u8], at: &mut usize) -> Option<u64> {
    read_leb_groups(bytes, at).map(|(value, _, _)| value)
}

/// Decodes one SLEB128 value from `bytes` at `at`.
fn read_sleb(bytes: &[u8], at: &mut usize) -> Option<i64> {
    let (bits, shift, last) = read_leb_groups(bytes, at)?;
    let mut value = bits as i64;
    if shift < 64 && last & 0x40 != 0 {
        value |= -1i64 << shift;
    }
    Some(value)
}

/// The typeinfo symbol of a type-table entry (`.L_ZTIi.DW.stub-.Ltmp3`, `DW.ref._ZTIi-.`,
/// `_ZTIi@GOTPCREL`), `None` for `0`.
fn type_table_symbol(expr: &str) -> Option<String> {
    let expr = expr.trim();
    if expr == "0" {
        return None;
    }
    let base = expr.split('-').next().unwrap_or(expr).trim();
    let base = base.split('@').next().unwrap_or(base);
    let base = unquote(base);
    let base = base.strip_prefix("DW.ref.").unwrap_or(base);
    let base = match base.strip_suffix(".DW.stub") {
        Some(stub) => stub.strip_prefix(".L").unwrap_or(stub),
        None => base,
    };
    Some(base.to_string())
}

/// The label a line defines, if it is a label line.
fn line_label(trimmed: &str) -> Option<&str> {
    let code = trimmed
        .split_once('#')
        .map_or(trimmed, |(c, _)| c)
        .trim_end();
    let label = code.strip_suffix(':')?;
    let plain = !label.contains(char::is_whitespace);
    let quoted = label.starts_with('"') && label.ends_with('"');
    (plain || quoted).then(|| unquote(label))
}

/// A label or a call in a function's code.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CodeEvent {
    Label(String),
    Call(String),
}

/// The label or call of a line of code (`call f@PLT`, `callq *%rax`, `jmp f@PLT`).
fn code_event(trimmed: &str) -> Option<CodeEvent> {
    if let Some(label) = line_label(trimmed) {
        return Some(CodeEvent::Label(label.to_string()));
    }
    let code = trimmed.split_once('#').map_or(trimmed, |(c, _)| c).trim();
    let (mnemonic, operand) = code.split_once(char::is_whitespace)?;
    let operand = operand.trim();
    let is_call = matches!(mnemonic, "call" | "callq");
    let is_jump = matches!(mnemonic, "jmp" | "jmpq");
    if !is_call && !is_jump {
        return None;
    }
    if operand.starts_with('*') {
        return is_call.then(|| CodeEvent::Call("<indirect>".to_string()));
    }
    if operand.starts_with(".L") {
        return None;
    }
    let target = operand.split('@').next().unwrap_or(operand);
    Some(CodeEvent::Call(unquote(target).to_string()))
}

/// The first label of a call-site field `.uleb128 .Ltmp1-.Ltmp0` (`.Ltmp1`).
fn leb_expr_label(line: &str) -> &str {
    let code = line.split_once('#').map_or(line, |(c, _)| c).trim();
    let expr = code.strip_prefix(".uleb128").unwrap_or(code).trim();
    expr.split('-').next().unwrap_or(expr).trim()
}

/// The callees of the calls between two labels of a function's code.
fn calls_between(events: &[CodeEvent], start: &str, end: &str) -> Vec<String> {
    let position = |name: &str| {
        events
            .iter()
            .position(|e| matches!(e, CodeEvent::Label(l) if l == name))
    };
    let from = position(start).unwrap_or(0);
    let to = position(end).unwrap_or(events.len());
    events
        .get(from..to.max(from))
        .unwrap_or_default()
        .iter()
        .filter_map(|e| match e {
            CodeEvent::Call(c) => Some(c.clone()),
            CodeEvent::Label(_) => None,
        })
        .collect()
}

/// Which part of an LSDA the reader is in.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum LsdaPart {
    Header,
    CallSites,
    Actions,
    Types,
    Filters,
}

/// Every function with an LSDA in an llc assembly listing for x86-64 ELF, by name: the
/// table after each `.LexceptionN` label belongs to the function whose `.cfi_lsda` names
/// it. Reads the comments llc writes (`>> Call Site N <<`, `jumps to`, `has no landing
/// pad`, `>> Catch TypeInfos <<`, `>> Filter TypeInfos <<`) to tell the fields apart.
pub fn parse_itanium(asm: &str) -> Result<BTreeMap<String, AsmLsda>, String> {
    // Which function each `.LexceptionN` belongs to.
    let mut functions = std::collections::BTreeSet::new();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    // The labels and calls of each function's code, in order.
    let mut code: BTreeMap<String, Vec<CodeEvent>> = BTreeMap::new();
    for line in asm.lines() {
        let trimmed = line.trim();
        if let (Some(func), Some(event)) = (&current, code_event(trimmed)) {
            code.entry(func.clone()).or_default().push(event);
        }
        if let Some(rest) = trimmed.strip_prefix(".type") {
            if let Some((name, kind)) = rest.split_once(',')
                && kind.trim().starts_with("@function")
            {
                functions.insert(unquote(name.trim()).to_string());
            }
        } else if let Some(label) = line_label(trimmed) {
            if functions.contains(label) {
                current = Some(label.to_string());
            }
        } else if let Some(rest) = trimmed.strip_prefix(".cfi_lsda") {
            let label = rest.split(',').nth(1).map(str::trim).unwrap_or_default();
            let Some(func) = &current else {
                return Err(format!(".cfi_lsda {label} outside a function"));
            };
            owner.insert(label.to_string(), func.clone());
        }
    }
    let mut out = BTreeMap::new();
    let mut table: Option<(String, AsmLsda)> = None;
    let mut part = LsdaPart::Header;
    let mut action_bytes: Vec<u8> = Vec::new();
    let mut filter_bytes: Vec<u8> = Vec::new();
    // Fields of the call-site record being read.
    let mut record: Vec<String> = Vec::new();
    let finish = |table: &mut Option<(String, AsmLsda)>,
                  action_bytes: &mut Vec<u8>,
                  filter_bytes: &mut Vec<u8>,
                  out: &mut BTreeMap<String, AsmLsda>|
     -> Result<(), String> {
        if let Some((name, mut lsda)) = table.take() {
            let mut at = 0;
            while at < action_bytes.len() {
                let filter = read_sleb(action_bytes, &mut at);
                let next = read_sleb(action_bytes, &mut at);
                match (filter, next) {
                    (Some(f), Some(n)) => lsda.actions.push((f, n)),
                    _ => return Err(format!("{name}: truncated action record")),
                }
            }
            let mut at = 0;
            while at < filter_bytes.len() {
                let id = read_uleb(filter_bytes, &mut at)
                    .ok_or_else(|| format!("{name}: truncated filter list"))?;
                lsda.filters.push(id);
            }
            // llc writes the type table from the highest type id down.
            lsda.types.reverse();
            out.insert(name, lsda);
        }
        action_bytes.clear();
        filter_bytes.clear();
        Ok(())
    };
    for line in asm.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let comment = trimmed.split_once('#').map_or("", |(_, c)| c.trim());
        if let Some(label) = line_label(trimmed) {
            if let Some(func) = owner.get(label) {
                finish(&mut table, &mut action_bytes, &mut filter_bytes, &mut out)?;
                table = Some((func.clone(), AsmLsda::default()));
                part = LsdaPart::Header;
                continue;
            }
            if table.is_none() {
                continue;
            }
            if label.starts_with(".Lcst_begin") {
                part = LsdaPart::CallSites;
            } else if label.starts_with(".Lcst_end") {
                part = LsdaPart::Actions;
            } else if label.starts_with(".Lttbase") && part == LsdaPart::Types {
                part = LsdaPart::Filters;
            }
            continue;
        }
        let Some((name, lsda)) = table.as_mut() else {
            continue;
        };
        if comment.starts_with("-- End function")
            || trimmed.starts_with(".section")
            || trimmed.starts_with(".text")
        {
            finish(&mut table, &mut action_bytes, &mut filter_bytes, &mut out)?;
            continue;
        }
        if comment.starts_with(">> Catch TypeInfos <<") {
            part = LsdaPart::Types;
            continue;
        }
        if comment.starts_with(">> Filter TypeInfos <<") {
            part = LsdaPart::Filters;
            continue;
        }
        if trimmed.starts_with('#') || trimmed.starts_with(".p2align") {
            continue;
        }
        match part {
            LsdaPart::Header => {}
            LsdaPart::CallSites => {
                if comment.starts_with(">> Call Site") {
                    record.clear();
                }
                record.push(trimmed.to_string());
                if record.len() == 4 {
                    let start = leb_expr_label(&record[0]);
                    let end = leb_expr_label(&record[1]);
                    let calls = code
                        .get(name.as_str())
                        .map(|events| calls_between(events, start, end))
                        .unwrap_or_default();
                    let pad_line = &record[2];
                    let landing_pad = if pad_line.contains("has no landing pad") {
                        None
                    } else {
                        let code = pad_line.split_once('#').map_or(&pad_line[..], |(c, _)| c);
                        let expr = code.trim().strip_prefix(".uleb128").ok_or_else(|| {
                            format!("{name}: cannot read landing pad '{pad_line}'")
                        })?;
                        Some(
                            expr.split('-')
                                .next()
                                .unwrap_or_default()
                                .trim()
                                .to_string(),
                        )
                    };
                    let action_line = &record[3];
                    let action = match directive_bytes(action_line) {
                        Some(bytes) => read_uleb(&bytes, &mut 0),
                        None => action_line
                            .split_once('#')
                            .map_or(&action_line[..], |(c, _)| c)
                            .trim()
                            .strip_prefix(".uleb128")
                            .and_then(|v| v.trim().parse::<u64>().ok()),
                    }
                    .ok_or_else(|| format!("{name}: cannot read action '{action_line}'"))?;
                    lsda.call_sites.push(AsmCallSite {
                        landing_pad,
                        calls,
                        action,
                    });
                    record.clear();
                }
            }
            LsdaPart::Actions => {
                let bytes = directive_bytes(trimmed)
                    .ok_or_else(|| format!("{name}: cannot read action record '{trimmed}'"))?;
                action_bytes.extend(bytes);
            }
            LsdaPart::Types => {
                let code = trimmed.split_once('#').map_or(trimmed, |(c, _)| c).trim();
                let expr = code
                    .strip_prefix(".long")
                    .or_else(|| code.strip_prefix(".quad"))
                    .ok_or_else(|| format!("{name}: cannot read type table entry '{trimmed}'"))?;
                lsda.types.push(type_table_symbol(expr));
            }
            LsdaPart::Filters => {
                let bytes = directive_bytes(trimmed)
                    .ok_or_else(|| format!("{name}: cannot read filter entry '{trimmed}'"))?;
                filter_bytes.extend(bytes);
            }
        }
    }
    finish(&mut table, &mut action_bytes, &mut filter_bytes, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod itanium_tests {
    use super::*;

    #[test]
    fn leb128_and_ascii_directives_decode() {
        assert_eq!(directive_bytes("\t.byte\t125  # x"), Some(vec![125]));
        assert_eq!(
            directive_bytes(".ascii \"\\375\\001\""),
            Some(vec![0o375, 1])
        );
        let mut at = 0;
        assert_eq!(read_sleb(&[125], &mut at), Some(-3));
        let mut at = 0;
        assert_eq!(read_sleb(&[0x80, 0x7f], &mut at), Some(-128));
        let mut at = 0;
        assert_eq!(read_uleb(&[0xe5, 0x8e, 0x26], &mut at), Some(624_485));
    }

    #[test]
    fn type_table_symbols_lose_their_stub_wrapping() {
        assert_eq!(
            type_table_symbol(".L_ZTIi.DW.stub-.Ltmp3"),
            Some("_ZTIi".to_string())
        );
        assert_eq!(
            type_table_symbol("DW.ref._ZTIi-."),
            Some("_ZTIi".to_string())
        );
        assert_eq!(type_table_symbol("0"), None);
    }
}
