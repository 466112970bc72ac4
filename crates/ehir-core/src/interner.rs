//! An interner: values stored once each, numbered by an entity in the order they were
//! first interned (so iterating it is deterministic). The type and attribute stores are
//! interners.

use cranelift_entity::{EntityRef, PrimaryMap};
use rustc_hash::FxHashMap as HashMap;
use std::hash::Hash;

/// Values of type `V`, each stored once and named by a `K`.
#[derive(Clone, Debug)]
pub struct Interner<K: EntityRef, V> {
    data: PrimaryMap<K, V>,
    index: HashMap<V, K>,
}

impl<K: EntityRef, V> Default for Interner<K, V> {
    fn default() -> Self {
        Self {
            data: PrimaryMap::new(),
            index: HashMap::default(),
        }
    }
}

impl<K: EntityRef, V: Clone + Eq + Hash> Interner<K, V> {
    /// The entity of `value`, added if new (equal values, equal entities).
    pub fn intern(&mut self, value: V) -> K {
        if let Some(&id) = self.index.get(&value) {
            return id;
        }
        let id = self.data.push(value.clone());
        self.index.insert(value, id);
        id
    }
}

impl<K: EntityRef, V> Interner<K, V> {
    /// Number of interned values.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

impl<K: EntityRef, V> std::ops::Index<K> for Interner<K, V> {
    type Output = V;

    fn index(&self, id: K) -> &V {
        &self.data[id]
    }
}
