//! The part of Clang's JSON AST (`-Xclang -ast-dump=json`) that the CIRGen uses, as
//! typed Rust structures. Every node is a [`Node`]: its `kind` (Clang's class name) and
//! the fields the generator reads; unknown fields and node kinds are ignored here (the
//! generator reports node kinds it does not support, at their location).
//!
//! Deep trees are fine: deserialization grows the stack on demand (`serde_stacker`),
//! the location walk grows it with `stacker`, and dropping a tree is iterative.

use serde::Deserialize;
use std::collections::{HashMap, HashSet};

/// A qualified type as Clang prints it.
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct QualType {
    /// The type as written (`size_t`, `const A &`).
    #[serde(default)]
    pub qual_type: String,
    /// The type without sugar, when it differs (`unsigned long`).
    pub desugared_qual_type: Option<String>,
}

impl QualType {
    /// The canonical spelling: desugared when Clang gave one.
    pub fn canonical(&self) -> &str {
        self.desugared_qual_type
            .as_deref()
            .unwrap_or(&self.qual_type)
    }
}

/// A reference to a declaration (`referencedDecl`, `dtor`, `operatorNewDecl`, ...).
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct DeclRef {
    /// The declaration's id (its address in Clang).
    #[serde(default)]
    pub id: String,
    /// Its kind.
    #[serde(default)]
    pub kind: String,
    /// Its name.
    pub name: Option<String>,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: Option<QualType>,
}

/// One point of a source location. Clang writes `file` and `line` only when they differ
/// from the previous location it printed; [`resolve_locations`] restores them.
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct BareLocation {
    /// Byte offset in its file.
    pub offset: Option<u32>,
    /// The file, when it changed.
    pub file: Option<String>,
    /// For a location in a macro expansion: where it is spelled.
    pub spelling_loc: Option<Box<BareLocation>>,
    /// For a location in a macro expansion: where the macro is expanded.
    pub expansion_loc: Option<Box<BareLocation>>,
}

/// A node's source range.
#[derive(Deserialize, Default, Clone, Debug)]
pub struct SourceRange {
    /// Its first token.
    #[serde(default)]
    pub begin: BareLocation,
    /// Its last token.
    #[serde(default)]
    pub end: BareLocation,
}

/// A base class of a `CXXRecordDecl`.
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct BaseSpecifier {
    /// `public`, `protected` or `private`.
    #[serde(default)]
    pub access: String,
    /// The base class type.
    #[serde(rename = "type", default)]
    pub ty: QualType,
    /// Whether it is a virtual base.
    #[serde(rename = "isVirtual", default)]
    pub is_virtual: bool,
}

/// Facts about one special member of a class (`copyCtor`, `dtor`, ...).
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SpecialMember {
    /// It is trivial.
    #[serde(default)]
    pub trivial: bool,
    /// It is declared by the user.
    #[serde(default)]
    pub user_declared: bool,
}

/// `definitionData` of a complete `CXXRecordDecl`.
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionData {
    /// POD for the purpose of layout (C++03 POD).
    #[serde(rename = "isPOD", default)]
    pub is_pod: bool,
    /// The class has no data (empty class).
    #[serde(default)]
    pub is_empty: bool,
    /// The class has virtual functions.
    #[serde(default)]
    pub is_polymorphic: bool,
    /// The class has a pure virtual function.
    #[serde(default)]
    pub is_abstract: bool,
    /// Copy constructor facts.
    #[serde(default)]
    pub copy_ctor: SpecialMember,
    /// Move constructor facts.
    #[serde(default)]
    pub move_ctor: SpecialMember,
    /// Default constructor facts.
    #[serde(default)]
    pub default_ctor: SpecialMember,
    /// Copy assignment facts.
    #[serde(default)]
    pub copy_assign: SpecialMember,
    /// Move assignment facts.
    #[serde(default)]
    pub move_assign: SpecialMember,
    /// Destructor facts.
    #[serde(default)]
    pub dtor: SpecialMember,
}

/// A node of the AST: a declaration, statement, expression or helper node
/// (`CXXCtorInitializer`). Fields not used by a kind are absent.
#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase", default)]
pub struct Node {
    /// Clang's id of the node (an address).
    pub id: String,
    /// Clang's class name (`FunctionDecl`, `BinaryOperator`, ...); empty for a null child.
    pub kind: String,
    /// The declaration's location.
    pub loc: Option<BareLocation>,
    /// The node's source range.
    pub range: Option<SourceRange>,
    /// A declaration's name (also `sizeof`/`alignof` of `UnaryExprOrTypeTraitExpr`).
    pub name: Option<String>,
    /// The mangled name of a function or variable for the target.
    pub mangled_name: Option<String>,
    /// The type of a declaration or expression.
    #[serde(rename = "type")]
    pub ty: Option<QualType>,
    /// `lvalue`, `xvalue` or `prvalue`.
    pub value_category: Option<String>,
    /// Operator spelling of unary and binary operators.
    pub opcode: Option<String>,
    /// The kind of a cast.
    pub cast_kind: Option<String>,
    /// A literal's value (string, number or bool as Clang writes it).
    pub value: Option<serde_json::Value>,
    /// What a `DeclRefExpr` names.
    pub referenced_decl: Option<DeclRef>,
    /// The namespace a `NamespaceAliasDecl` names.
    pub aliased_namespace: Option<DeclRef>,
    /// The member a `MemberExpr` names (an id).
    pub referenced_member_decl: Option<String>,
    /// `->` rather than `.`.
    pub is_arrow: bool,
    /// An implicit declaration (implicit special members, implicit self-reference).
    pub is_implicit: bool,
    /// Postfix `++`/`--`.
    pub is_postfix: bool,
    /// `static`, `extern`.
    pub storage_class: Option<String>,
    /// `c`, `call` or `list` initialization of a variable.
    pub init: Option<String>,
    /// The constructor type of a `CXXConstructExpr`.
    pub ctor_type: Option<QualType>,
    /// The destructor of a `CXXBindTemporaryExpr`.
    pub dtor: Option<DeclRef>,
    /// The conversion function of a cast.
    pub conversion_func: Option<DeclRef>,
    /// The `operator new` of a new-expression.
    pub operator_new_decl: Option<DeclRef>,
    /// The `operator delete` of a new- or delete-expression.
    pub operator_delete_decl: Option<DeclRef>,
    /// `new T[n]` / `delete[]`.
    pub is_array: bool,
    /// `::new` / `::delete`.
    pub is_global: bool,
    /// The base classes of a class.
    pub bases: Vec<BaseSpecifier>,
    /// Facts about a complete class.
    pub definition_data: Option<DefinitionData>,
    /// `struct`, `class`, `union`, `enum`.
    pub tag_used: Option<String>,
    /// The declaration is a definition of the class.
    pub complete_definition: bool,
    /// An inline namespace (`inline namespace __cxx11`).
    pub is_inline: bool,
    /// The semantic parent of a declaration defined outside it (`struct Outer::Inner
    /// {...};` at namespace scope), by id.
    pub parent_decl_context_id: Option<String>,
    /// A template parameter's default argument (a `TemplateArgument` node).
    pub default_arg: Option<Box<Node>>,
    /// The member initialized by a `CXXCtorInitializer`.
    pub any_init: Option<DeclRef>,
    /// The base class initialized by a `CXXCtorInitializer`.
    pub base_init: Option<QualType>,
    /// The type argument of `sizeof(T)`.
    pub arg_type: Option<QualType>,
    /// The type operand of `typeid(T)`.
    pub type_arg: Option<QualType>,
    /// `automatic`, `full expression`, `static` for `MaterializeTemporaryExpr`.
    pub storage_duration: Option<String>,
    /// The function is virtual.
    #[serde(rename = "virtual")]
    pub is_virtual: bool,
    /// The function is pure virtual.
    pub pure: bool,
    /// The previous declaration of a redeclaration (an id).
    pub previous_decl: Option<String>,
    /// The label a `GotoStmt` jumps to (an id).
    pub target_label_decl_id: Option<String>,
    /// The label declaration of a `LabelStmt` (an id).
    pub decl_id: Option<String>,
    /// `if` with an `else`.
    pub has_else: bool,
    /// `if`/`switch`/`while` with a condition variable.
    pub has_var: bool,
    /// `if`/`switch` with an init statement.
    pub has_init: bool,
    /// `case` with a range (`case 1 ... 3`).
    pub is_gnu_range: bool,
    /// `= default` / `= delete` as written.
    pub explicitly_defaulted: Option<String>,
    /// `= delete`.
    pub explicitly_deleted: bool,
    /// The function is `inline` (as written, or implicitly for an implicit member).
    pub inline: bool,
    /// The function (or variable) is `constexpr`.
    pub constexpr: bool,
    /// The `ConstructionKind` of a `CXXConstructExpr` (`complete`, `non-virtual base`, ...).
    pub construction_kind: Option<String>,
    /// The underlying type of an enum with a fixed one.
    pub fixed_underlying_type: Option<QualType>,
    /// The declaration an `EnumType` or `RecordType` names.
    pub decl: Option<DeclRef>,
    /// `MemberExpr` of a bit field, `FieldDecl` bit width.
    pub is_bitfield: bool,
    /// An elidable copy or move (`CXXConstructExpr`).
    pub elidable: bool,
    /// Zero-initialize before constructing (`CXXConstructExpr` of `T()`).
    pub zeroing: bool,
    /// The variable is the named return value (NRVO).
    pub nrvo: bool,
    /// The type operands of `+=` etc. are converted to.
    #[serde(rename = "computeLHSType")]
    pub compute_lhs_type: Option<QualType>,
    /// The type of the operation of `+=` etc.
    #[serde(rename = "computeResultType")]
    pub compute_result_type: Option<QualType>,
    /// The initializer of the elements an `InitListExpr` of an array leaves out.
    #[serde(rename = "array_filler")]
    pub array_filler: Children,
    /// The template a function instantiation was instantiated from (an id).
    #[serde(rename = "TemplateInstantiationPattern")]
    pub template_instantiation_pattern: Option<String>,
    /// The children.
    pub inner: Children,
    /// The byte offset of the node in the main file (resolved after reading, from `loc`
    /// or the start of `range`); `None` when it is in another file.
    #[serde(skip)]
    pub main_offset: Option<u32>,
}

/// The children of a node; dropping them is iterative, so that a tree 800,000 levels
/// deep needs no deep stack.
#[derive(Deserialize, Default, Debug)]
#[serde(transparent)]
pub struct Children(pub Vec<Node>);

impl std::ops::Deref for Children {
    type Target = Vec<Node>;
    fn deref(&self) -> &Vec<Node> {
        &self.0
    }
}

impl std::ops::DerefMut for Children {
    fn deref_mut(&mut self) -> &mut Vec<Node> {
        &mut self.0
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.0);
        while let Some(mut node) = pending.pop() {
            pending.append(&mut node.inner.0);
            pending.append(&mut node.array_filler.0);
        }
    }
}

impl Node {
    /// Whether a function is inline: declared `inline` or `constexpr` (which implies it).
    pub fn is_inline(&self) -> bool {
        self.inline || self.constexpr
    }

    /// The type of the node, parsed; `None` when it has none or cannot be modelled.
    pub fn type_text(&self) -> Option<&str> {
        self.ty.as_ref().map(QualType::canonical)
    }

    /// The children that are not null (`{}` children have an empty kind).
    pub fn children(&self) -> impl Iterator<Item = &Node> {
        self.inner.iter().filter(|n| !n.kind.is_empty())
    }

    /// The `index`th child, null ones included.
    pub fn child(&self, index: usize) -> Option<&Node> {
        self.inner.get(index).filter(|n| !n.kind.is_empty())
    }

    /// The parts of an `InitListExpr`: the filler of the elements it leaves out and the
    /// written initializers. (Clang's JSON writes both under `array_filler` when there
    /// is a filler: the filler first, then the initializers.)
    pub fn init_list_parts(&self) -> (Option<&Node>, Vec<&Node>) {
        match self.array_filler.split_first() {
            Some((filler, elements)) => (Some(filler), elements.iter().collect()),
            None => (None, self.children().collect()),
        }
    }

    /// Whether the node is a declaration.
    pub fn is_decl(&self) -> bool {
        self.kind.ends_with("Decl")
    }

    /// The initializer of a variable declaration: its first child that is neither a
    /// declaration nor an attribute (`alignas` is an `AlignedAttr` child).
    pub fn initializer(&self) -> Option<&Node> {
        self.children()
            .find(|c| !c.is_decl() && !c.kind.ends_with("Attr"))
    }

    /// A string literal value of `value`, or a number/bool rendered as text.
    pub fn value_text(&self) -> Option<String> {
        match self.value.as_ref()? {
            serde_json::Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    }
}

/// The value Clang folded for an expression: the `value` of the first node down the
/// chain of first children that has one (`ImplicitCastExpr` → `ConstantExpr`).
pub fn folded_value(node: &Node) -> Option<String> {
    let mut current = node;
    loop {
        if let Some(value) = current.value_text() {
            return Some(value);
        }
        current = current.children().next()?;
    }
}

/// How Clang names an anonymous namespace in printed names.
const ANONYMOUS_NAMESPACE: &str = "(anonymous namespace)";

/// An error reading the JSON.
#[derive(Debug, thiserror::Error)]
#[error("cannot read Clang's JSON AST: {0}")]
pub struct ReadError(#[from] serde_json::Error);

/// Reads a translation unit from Clang's JSON AST and resolves which nodes are in
/// `main_file` (the path as given to Clang).
pub fn read_translation_unit(json: &str, main_file: &str) -> Result<Node, ReadError> {
    // Clang writes `type` twice in a `UsingType` node; all but the last are renamed
    // first (as a JSON value would keep the last), which spares the slow path below
    // (libstdc++'s `<string>` has such nodes).
    let renamed;
    let json = if json.contains("\"UsingType\"") {
        renamed = rename_shadowed_type_keys(json);
        renamed.as_str()
    } else {
        json
    };
    let mut root = match read_node(json) {
        Err(e) if e.to_string().starts_with("duplicate field") => {
            // Clang writes some keys twice (`type` of a `UsingType`): through a JSON value,
            // the last one counts.
            let mut deserializer = serde_json::Deserializer::from_str(json);
            deserializer.disable_recursion_limit();
            let stacked = serde_stacker::Deserializer::new(&mut deserializer);
            let value = serde_json::Value::deserialize(stacked)?;
            deserializer.end()?;
            Node::deserialize(serde_stacker::Deserializer::new(value))?
        }
        other => other?,
    };
    resolve_locations(&mut root, main_file);
    Ok(root)
}

/// The key a shadowed `type` key is renamed to (same length, so offsets stay; not a
/// field of [`Node`], so ignored).
const SHADOWED_TYPE_KEY: &str = "\"TYPE\"";

/// `json` (as Clang pretty-prints it: one key or bracket per line) with every `"type"`
/// key of an object that has a later one renamed to [`SHADOWED_TYPE_KEY`].
fn rename_shadowed_type_keys(json: &str) -> String {
    let mut out = json.as_bytes().to_vec();
    // Open containers: `Some(last "type" key offset)` per object, `None` for arrays.
    let mut open: Vec<Option<Option<usize>>> = Vec::new();
    let mut offset = 0;
    for line in json.split_inclusive('\n') {
        // Clang indents with spaces (a byte scan: the indentation is most of the text).
        let indent = line.bytes().take_while(|&b| b == b' ').count();
        let body = line[indent..].trim_end();
        let at = offset + indent;
        offset += line.len();
        if body.starts_with('}') || body.starts_with(']') {
            open.pop();
            continue;
        }
        if body.starts_with("\"type\":")
            && let Some(Some(last)) = open.last_mut()
            && let Some(previous) = last.replace(at)
        {
            out[previous..previous + SHADOWED_TYPE_KEY.len()]
                .copy_from_slice(SHADOWED_TYPE_KEY.as_bytes());
        }
        if body.ends_with('{') {
            open.push(Some(None));
        } else if body.ends_with('[') {
            open.push(None);
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(out).unwrap_or_else(|_| json.to_string())
}

/// Reads a node from JSON text.
fn read_node(json: &str) -> Result<Node, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    deserializer.disable_recursion_limit();
    let stacked = serde_stacker::Deserializer::new(&mut deserializer);
    let root = Node::deserialize(stacked)?;
    deserializer.end()?;
    Ok(root)
}

/// Which file each location is in: Clang prints `file` only when it changes from the
/// last location printed (in document order: `loc`, then `range.begin`, `range.end`,
/// then the children); a location in a macro expansion counts at its expansion.
pub fn resolve_locations(root: &mut Node, main_file: &str) {
    let mut current: Option<String> = None;
    let hash = anonymous_namespace_hash(main_file);
    resolve_node(root, main_file, &hash, &mut current);
}

/// What names the translation unit's anonymous namespace in Microsoft mangled names in
/// place of Clang's hash of the main file's path as given (`?A0x…@`, which depends on
/// the directory): 8 hexadecimal digits of a hash (FNV-1a) of the file's name alone.
fn anonymous_namespace_hash(main_file: &str) -> String {
    let file_name = main_file.rsplit(['/', '\\']).next().unwrap_or(main_file);
    let hash = file_name.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    });
    format!("{hash:08X}")
}

/// Below this much stack, recursive walks over the AST grow it...
pub const RED_ZONE: usize = 256 * 1024;
/// ...by a segment of this size.
pub const STACK_SEGMENT: usize = 8 * 1024 * 1024;

fn resolve_node(node: &mut Node, main_file: &str, hash: &str, current: &mut Option<String>) {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        if let Some(stable) = node
            .mangled_name
            .as_deref()
            .and_then(|name| ehir_core::abi::type_names::with_anonymous_namespace_hash(name, hash))
        {
            node.mangled_name = Some(stable);
        }
        let mut offsets = Vec::new();
        if let Some(loc) = &node.loc {
            offsets.push(track(loc, current, main_file));
        }
        if let Some(range) = &node.range {
            offsets.push(track(&range.begin, current, main_file));
            track(&range.end, current, main_file);
        }
        node.main_offset = offsets.into_iter().flatten().next();
        for child in node.inner.iter_mut() {
            resolve_node(child, main_file, hash, current);
        }
    })
}

/// Updates the current file from one location; returns its offset if it is in the main
/// file.
fn track(loc: &BareLocation, current: &mut Option<String>, main_file: &str) -> Option<u32> {
    if let (Some(spelling), Some(expansion)) = (&loc.spelling_loc, &loc.expansion_loc) {
        track(spelling, current, main_file);
        return track(expansion, current, main_file);
    }
    if let Some(file) = &loc.file {
        *current = Some(file.clone());
    }
    let offset = loc.offset?;
    (current.as_deref() == Some(main_file)).then_some(offset)
}

/// Ids of every declaration in the tree, and the definitions of functions by each id
/// of their redeclaration chain.
#[derive(Default)]
pub struct DeclIndex<'ast> {
    /// Every declaration by id.
    pub by_id: HashMap<&'ast str, &'ast Node>,
    /// The enclosing class (qualified name) of each member declaration, by id.
    pub parent_class: HashMap<&'ast str, String>,
    /// Complete class definitions by qualified name.
    pub classes: HashMap<String, &'ast Node>,
    /// Enums by qualified name.
    pub enums: HashMap<String, &'ast Node>,
    /// Function definitions (with a body), by the id of any declaration of them.
    pub definitions: HashMap<&'ast str, &'ast Node>,
    /// Function definitions in the main file, in source order (what a translation unit
    /// must emit).
    pub main_definitions: Vec<&'ast Node>,
    /// Variables at namespace scope, in order.
    pub globals: Vec<&'ast Node>,
    /// Typedefs and alias declarations by qualified name.
    pub typedefs: HashMap<String, &'ast Node>,
    /// Names brought into a namespace by a using-declaration, by qualified name: the
    /// qualified name they stand for (`std::exception` → `exception` for `namespace std {
    /// using ::exception; }`, as the Windows headers name msvcrt's classes).
    pub using_names: HashMap<String, String>,
    /// Namespaces: the qualified name (`app::storage`) of each by id.
    pub namespaces: HashMap<&'ast str, String>,
    /// Namespace aliases: the id of the namespace each qualified alias name names.
    pub namespace_aliases: HashMap<String, String>,
    /// The variables captured by each closure class, in field order (ids).
    pub captures: HashMap<String, Vec<String>>,
    /// The values of enumerators, by id.
    pub enumerators: HashMap<&'ast str, i128>,
    /// The declarations inside an anonymous namespace (internal linkage), by id.
    pub in_anonymous_namespace: HashSet<&'ast str>,
    /// Class names as Clang spells them in types, by the qualified name their class is
    /// indexed under when that differs: without inline namespaces
    /// (`std::basic_ostream<char>` for `std::__cxx11::...`) and without trailing template
    /// arguments equal to their defaults (`Box<char>` for `Box<char, int>`).
    pub class_aliases: HashMap<String, String>,
    /// Class templates by qualified name (the first declaration met).
    class_templates: HashMap<String, &'ast Node>,
    /// The qualified names of inline namespaces (`std::__cxx11`).
    inline_namespaces: Vec<String>,
}

/// The name of a class as Clang prints it in types: `A`, or for a template
/// specialization its arguments too (`Box<int, 3>`).
pub fn class_name(node: &Node) -> Option<String> {
    let name = node.name.clone()?;
    if node.kind != "ClassTemplateSpecializationDecl" {
        return Some(name);
    }
    let mut arguments = Vec::new();
    for argument in node.children().filter(|c| c.kind == "TemplateArgument") {
        match (&argument.ty, argument.value_text()) {
            (Some(ty), _) => arguments.push(ty.qual_type.clone()),
            (None, Some(value)) => arguments.push(value),
            (None, None) => return None,
        }
    }
    Some(format!("{name}<{}>", arguments.join(", ")))
}

/// `text` with every occurrence of the identifier `word` replaced by `by`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut at = 0;
    while let Some(found) = text[at..].find(word) {
        let start = at + found;
        let end = start + word.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        out.push_str(&text[at..start]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// A type spelling with every qualifier (`std::`, `a::b::`) removed.
fn unqualified(text: &str) -> String {
    let mut out = String::new();
    let mut ident = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_alphanumeric() || c == '_' {
            ident.push(c);
            continue;
        }
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            ident.clear();
            continue;
        }
        out.push_str(&ident);
        ident.clear();
        out.push(c);
    }
    out.push_str(&ident);
    out
}

/// The id of the first variable an expression refers to.
fn first_variable(e: &Node) -> Option<String> {
    let mut pending = vec![e];
    while let Some(node) = pending.pop() {
        if node.kind == "DeclRefExpr"
            && let Some(decl) = &node.referenced_decl
            && matches!(decl.kind.as_str(), "VarDecl" | "ParmVarDecl")
        {
            return Some(decl.id.clone());
        }
        pending.extend(node.children().collect::<Vec<_>>().into_iter().rev());
    }
    None
}

/// Whether a function declaration node has a body.
pub fn has_body(node: &Node) -> bool {
    node.children()
        .any(|c| c.kind == "CompoundStmt" || c.kind == "CXXTryStmt")
}

impl<'ast> DeclIndex<'ast> {
    /// The declaration `reference` names, when there is a reference and it is known.
    pub fn referenced(&self, reference: Option<&DeclRef>) -> Option<&'ast Node> {
        self.by_id.get(reference?.id.as_str()).copied()
    }

    /// Whether a declaration (or one it redeclares) is inside an anonymous namespace,
    /// which gives it internal linkage.
    pub fn in_anonymous_namespace(&self, decl: &Node) -> bool {
        let mut id = Some(decl.id.as_str());
        while let Some(current) = id {
            if self.in_anonymous_namespace.contains(current) {
                return true;
            }
            id = self
                .by_id
                .get(current)
                .and_then(|d| d.previous_decl.as_deref());
        }
        false
    }

    /// Indexes a translation unit.
    pub fn build(root: &'ast Node) -> Self {
        let mut index = DeclIndex::default();
        index.visit(root, "", None);
        index.add_class_aliases();
        index
    }

    /// Fills [`DeclIndex::class_aliases`].
    fn add_class_aliases(&mut self) {
        let mut keys: Vec<String> = self.classes.keys().cloned().collect();
        keys.sort();
        for key in keys {
            let node = self.classes[&key];
            let (prefix, spelled) = match class_name(node) {
                Some(name) if key.ends_with(&name) => {
                    let prefix = key[..key.len() - name.len()].to_string();
                    let spelled = match self.defaults_dropped(&prefix, node) {
                        Some(shorter) => vec![name, shorter],
                        None => vec![name],
                    };
                    (prefix, spelled)
                }
                _ => continue,
            };
            let mut prefixes = vec![prefix.clone()];
            for inline in &self.inline_namespaces {
                let segment = format!("{inline}::");
                if let Some(rest) = prefix.strip_prefix(&segment) {
                    let outer = inline.rsplit_once("::").map_or("", |(o, _)| o);
                    let outer = if outer.is_empty() {
                        String::new()
                    } else {
                        format!("{outer}::")
                    };
                    prefixes.push(format!("{outer}{rest}"));
                }
            }
            for p in &prefixes {
                for name in &spelled {
                    let alias = format!("{p}{name}");
                    if alias != key && !self.classes.contains_key(&alias) {
                        self.class_aliases
                            .entry(alias)
                            .or_insert_with(|| key.clone());
                    }
                }
            }
        }
    }

    /// The name of class template specialization `node` (declared in namespace or class
    /// `prefix`) as Clang prints it when its trailing template arguments equal the
    /// template's defaults (`Box<char>` for `Box<char, int>` of `template <class T, class
    /// U = int>`); `None` when no argument is left out. Only type arguments are compared
    /// (their spellings with every `A::` qualifier removed, the earlier parameters'
    /// names replaced by their arguments in the default).
    fn defaults_dropped(&self, prefix: &str, node: &Node) -> Option<String> {
        if node.kind != "ClassTemplateSpecializationDecl" {
            return None;
        }
        let name = node.name.as_deref()?;
        // The template may be declared in an inline namespace of `prefix` (libstdc++'s
        // `extern template class basic_string<char>;` in `std` names the template of
        // `std::__cxx11`).
        let template = self
            .class_templates
            .get(&format!("{prefix}{name}"))
            .or_else(|| {
                self.inline_namespaces.iter().find_map(|inline| {
                    let (outer, inner) = inline.rsplit_once("::").unwrap_or(("", inline));
                    let outer = if outer.is_empty() {
                        String::new()
                    } else {
                        format!("{outer}::")
                    };
                    (outer == prefix)
                        .then(|| {
                            self.class_templates
                                .get(&format!("{prefix}{inner}::{name}"))
                        })
                        .flatten()
                })
            })?;
        let params: Vec<&Node> = template
            .children()
            .filter(|c| c.kind.ends_with("ParmDecl"))
            .collect();
        let arguments: Vec<String> = node
            .children()
            .filter(|c| c.kind == "TemplateArgument")
            .map(|a| a.ty.as_ref().map(|t| t.qual_type.clone()))
            .collect::<Option<_>>()?;
        if params.len() != arguments.len() {
            return None;
        }
        let mut kept = arguments.len();
        while kept > 0 {
            let param = params[kept - 1];
            let Some(default) = param
                .default_arg
                .as_ref()
                .and_then(|d| d.ty.as_ref())
                .map(|t| t.qual_type.clone())
            else {
                break;
            };
            let mut expected = default;
            for (earlier, argument) in params.iter().zip(&arguments).take(kept - 1) {
                if let Some(param_name) = &earlier.name {
                    expected = replace_word(&expected, param_name, argument);
                }
            }
            if unqualified(&expected) != unqualified(&arguments[kept - 1]) {
                break;
            }
            kept -= 1;
        }
        (kept < arguments.len()).then(|| format!("{name}<{}>", arguments[..kept].join(", ")))
    }

    /// Indexes the classes declared in a function body: local classes (by their name,
    /// the first of one name) and the closure classes of lambdas (named by their type,
    /// `(lambda at f.cpp:3:12)`), with their members.
    fn closures_in(&mut self, function: &'ast Node) {
        let mut pending: Vec<&'ast Node> = function.children().collect();
        while let Some(node) = pending.pop() {
            if node.kind == "CXXRecordDecl"
                && !node.is_implicit
                && node.complete_definition
                && let Some(name) = &node.name
                && !self.classes.contains_key(name)
            {
                self.visit(node, "", None);
                continue;
            }
            if node.kind == "LambdaExpr"
                && let (Some(name), Some(closure)) = (
                    node.type_text().map(str::to_string),
                    node.children().find(|c| c.kind == "CXXRecordDecl"),
                )
            {
                self.by_id.insert(&closure.id, closure);
                self.classes.insert(name.clone(), closure);
                // The variable each capture (a field, in order) holds.
                let captured = node
                    .children()
                    .filter(|c| !c.is_decl() && c.kind != "CompoundStmt")
                    .map(|init| first_variable(init).unwrap_or_default())
                    .collect();
                self.captures.insert(name.clone(), captured);
                for member in closure.children() {
                    self.visit(member, "", Some(&name));
                }
            }
            pending.extend(node.children());
        }
    }

    fn visit(&mut self, node: &'ast Node, prefix: &str, class: Option<&str>) {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            if node.is_decl() && !node.id.is_empty() {
                self.by_id.insert(&node.id, node);
                if prefix.contains(ANONYMOUS_NAMESPACE) {
                    self.in_anonymous_namespace.insert(&node.id);
                }
                if let Some(class) = class {
                    self.parent_class.insert(&node.id, class.to_string());
                }
            }
            match node.kind.as_str() {
                "TranslationUnitDecl" | "LinkageSpecDecl" => {
                    for child in node.children() {
                        self.visit(child, prefix, None);
                    }
                }
                "NamespaceDecl" => {
                    let name = node.name.as_deref().unwrap_or(ANONYMOUS_NAMESPACE);
                    if node.is_inline && node.name.is_some() {
                        let qualified = format!("{prefix}{name}");
                        if !self.inline_namespaces.contains(&qualified) {
                            self.inline_namespaces.push(qualified);
                        }
                    }
                    let inner = format!("{prefix}{name}::");
                    self.namespaces.insert(&node.id, format!("{prefix}{name}"));
                    for child in node.children() {
                        self.visit(child, &inner, None);
                    }
                }
                "ClassTemplateDecl" => {
                    if let Some(name) = &node.name {
                        self.class_templates
                            .entry(format!("{prefix}{name}"))
                            .or_insert(node);
                    }
                    // The specializations Clang instantiated; the pattern is not code.
                    for child in node.children() {
                        if child.kind == "ClassTemplateSpecializationDecl" {
                            self.visit(child, prefix, class);
                        }
                    }
                }
                "CXXRecordDecl" | "ClassTemplateSpecializationDecl" if !node.is_implicit => {
                    let Some(name) = class_name(node) else { return };
                    // A nested class defined outside its class (`struct Outer::Inner
                    // {...};`) is named in its class, where it was declared first.
                    let outer = node
                        .parent_decl_context_id
                        .as_ref()
                        .and(node.previous_decl.as_deref())
                        .and_then(|previous| self.parent_class.get(previous))
                        .cloned();
                    let qualified = match &outer {
                        Some(outer) => format!("{outer}::{name}"),
                        None => format!("{prefix}{name}"),
                    };
                    if let Some(outer) = outer {
                        self.parent_class.insert(&node.id, outer);
                    }
                    if node.complete_definition {
                        self.classes.insert(qualified.clone(), node);
                    }
                    let inner = format!("{qualified}::");
                    let children: Vec<&'ast Node> = node.children().collect();
                    for (i, child) in children.iter().enumerate() {
                        // An anonymous union or struct member: known by the type of the
                        // implicit field after it (`S::(anonymous union at f.cpp:2:3)`).
                        if child.kind == "CXXRecordDecl"
                            && child.name.is_none()
                            && child.complete_definition
                            && let Some(field) = children.get(i + 1)
                            && field.kind == "FieldDecl"
                            && field.is_implicit
                            && let Some(name) = field.type_text()
                        {
                            let name = name
                                .trim_start_matches("union ")
                                .trim_start_matches("struct ")
                                .to_string();
                            self.by_id.insert(&child.id, child);
                            self.classes.insert(name.clone(), child);
                            let nested = format!("{name}::");
                            for member in child.children() {
                                self.visit(member, &nested, Some(&name));
                            }
                            continue;
                        }
                        self.visit(child, &inner, Some(&qualified));
                    }
                }
                "EnumDecl" => {
                    if let Some(name) = &node.name {
                        self.enums.insert(format!("{prefix}{name}"), node);
                    }
                    let mut next = 0i128;
                    for constant in node.children().filter(|c| c.kind == "EnumConstantDecl") {
                        let explicit = constant
                            .children()
                            .next()
                            .and_then(folded_value)
                            .and_then(|v| v.parse::<i128>().ok());
                        let value = explicit.unwrap_or(next);
                        self.by_id.insert(&constant.id, constant);
                        self.enumerators.insert(&constant.id, value);
                        next = value + 1;
                    }
                }
                "FunctionDecl" | "CXXMethodDecl" | "CXXConstructorDecl" | "CXXDestructorDecl"
                | "CXXConversionDecl"
                    if has_body(node) =>
                {
                    let mut id = Some(node.id.as_str());
                    while let Some(current) = id {
                        self.definitions.insert(current, node);
                        id = self
                            .by_id
                            .get(current)
                            .and_then(|d| d.previous_decl.as_deref());
                    }
                    // Instantiations of templates are generated when used.
                    if node.main_offset.is_some() && node.template_instantiation_pattern.is_none() {
                        self.main_definitions.push(node);
                    }
                    self.closures_in(node);
                }
                "FunctionTemplateDecl" => {
                    // The instantiations Clang made (they have mangled names); the
                    // pattern itself is not code.
                    for child in node.children() {
                        if child.mangled_name.is_some() {
                            self.visit(child, prefix, class);
                        }
                    }
                }
                "VarDecl" => self.globals.push(node),
                "NamespaceAliasDecl" => {
                    if let (Some(name), Some(target)) = (&node.name, &node.aliased_namespace) {
                        self.namespace_aliases
                            .insert(format!("{prefix}{name}"), target.id.clone());
                    }
                }
                "TypedefDecl" | "TypeAliasDecl" => {
                    if let Some(name) = &node.name {
                        self.typedefs.insert(format!("{prefix}{name}"), node);
                        // `typedef enum { ... } E;`, `typedef struct { ... } S;`: the
                        // unnamed type is known by the typedef's name.
                        let named = node.children().find_map(|t| t.decl.as_ref());
                        if let Some(target) = named
                            && target.name.as_deref().is_none_or(str::is_empty)
                            && let Some(&decl) = self.by_id.get(target.id.as_str())
                        {
                            match decl.kind.as_str() {
                                "EnumDecl" => {
                                    self.enums.insert(format!("{prefix}{name}"), decl);
                                }
                                "CXXRecordDecl" if decl.complete_definition => {
                                    let qualified = format!("{prefix}{name}");
                                    self.classes.insert(qualified.clone(), decl);
                                    let inner = format!("{qualified}::");
                                    for child in decl.children() {
                                        self.visit(child, &inner, Some(&qualified));
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
                "UsingDecl" => {
                    // `::name` names it from the global namespace, `a::name` from here.
                    if let Some(written) = &node.name {
                        let target = match written.strip_prefix("::") {
                            Some(global) => global.to_string(),
                            None => format!("{prefix}{written}"),
                        };
                        let name = target.rsplit("::").next().unwrap_or(&target);
                        self.using_names.insert(format!("{prefix}{name}"), target);
                    }
                }
                _ => {}
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{rename_shadowed_type_keys, replace_word, unqualified};

    #[test]
    fn only_the_last_type_key_of_an_object_is_kept() {
        let json = "{\n  \"kind\": \"UsingType\",\n  \"type\": {\n    \"qualType\": \"a\"\n  },\n  \"inner\": [\n    {\n      \"type\": {}\n    }\n  ],\n  \"type\": {\n    \"qualType\": \"b\"\n  }\n}\n";
        let renamed = rename_shadowed_type_keys(json);
        assert_eq!(renamed.matches("\"TYPE\"").count(), 1);
        let node: super::Node = serde_json::from_str(&renamed).expect("no duplicate left");
        assert_eq!(node.ty.expect("a type").qual_type, "b");
    }

    #[test]
    fn default_arguments_compare_without_qualifiers() {
        assert_eq!(
            replace_word("char_traits<_CharT>", "_CharT", "char"),
            "char_traits<char>"
        );
        // Only the whole identifier is replaced.
        assert_eq!(replace_word("T<TT, T>", "T", "int"), "int<TT, int>");
        assert_eq!(unqualified("std::char_traits<char>"), "char_traits<char>");
        assert_eq!(
            unqualified("a::b::Pair<x::Y, int>"),
            unqualified("Pair<Y, int>")
        );
    }
}
