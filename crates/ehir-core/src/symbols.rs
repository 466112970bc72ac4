//! The string interner: symbol names, alloca names and labels share one table per module.

use crate::entities::Symbol;
use cranelift_entity::PrimaryMap;
use rustc_hash::FxHashMap as HashMap;

/// Interns strings as [`Symbol`]s. Lookup is by hash; iteration order is insertion order.
#[derive(Default, Clone, Debug)]
pub struct SymbolTable {
    strings: PrimaryMap<Symbol, Box<str>>,
    index: HashMap<Box<str>, Symbol>,
}

impl SymbolTable {
    /// Returns the symbol for `s`, interning it on first use.
    pub fn intern(&mut self, s: &str) -> Symbol {
        if let Some(&sym) = self.index.get(s) {
            return sym;
        }
        let sym = self.strings.push(s.into());
        self.index.insert(s.into(), sym);
        sym
    }

    /// Returns the symbol for `s` if it was interned.
    pub fn lookup(&self, s: &str) -> Option<Symbol> {
        self.index.get(s).copied()
    }

    /// How many strings are interned.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether no string is interned.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// The text of a symbol.
    pub fn name(&self, sym: Symbol) -> &str {
        &self.strings[sym]
    }

    /// The text of a symbol, or `None` for a symbol this table never interned.
    pub fn get(&self, sym: Symbol) -> Option<&str> {
        self.strings.get(sym).map(|s| &**s)
    }
}
