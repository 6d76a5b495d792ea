//! The in-house JSON Schema (Draft 2020-12) validator for the project's own
//! embedded schemas, and nothing else: it owns compiling a schema document
//! into a tree of nodes once (regexes compiled, `$ref`s resolved to node
//! indices, from the embedded documents only, never the network) and
//! validating an instance against it, with errors that carry the instance
//! pointer, the schema keyword path and the message.
//!
//! It knows exactly the keywords the schemas in `schemas/` use; any other
//! keyword makes compilation fail, so a schema edit cannot be silently left
//! unenforced. Messages and their order follow what the `jsonschema` crate
//! (0.61) reports for the same keywords — a differential test keeps it as the
//! oracle (`tests/contracts/schema_differential.rs`): keywords of one schema object
//! run in its priority order (type, const, enum, minimum, maximum,
//! minLength, minItems, maxItems, required, pattern, properties,
//! additionalProperties, propertyNames, items, prefixItems, allOf, anyOf,
//! oneOf, if, $ref), `properties` and a non-`true` `additionalProperties`
//! walk the instance's members together (member errors in member order,
//! then the unexpected members), and a single `required` name beside
//! `properties` and `additionalProperties: false` is reported after that
//! walk.

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Deepest nesting of schema nodes one validation walks before it stops
/// with an error instead of growing the stack further. Instances reach the
/// validator at most 64 levels deep (`contract::yaml::MAX_DEPTH`) and each
/// instance level costs a few nodes (`$ref`, `allOf`, the node itself).
const MAX_NODE_DEPTH: usize = 512;

/// Below this much stack left, a nested walk continues on a new segment of
/// `STACK_GROWTH` bytes (the YAML reader's figures).
const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_GROWTH: usize = 4 * 1024 * 1024;

/// Node depths below this recurse without asking how much stack is left:
/// the first question costs a read of `/proc/self/maps` (glibc's answer for
/// the main thread), and a spec or report never nests deeper than this. A
/// level costs about a kilobyte of stack in a release build and tens in a
/// debug one, so debug builds ask from the third level on.
const UNCHECKED_DEPTH: usize = if cfg!(debug_assertions) { 2 } else { 32 };

/// What kind of violation an error is, as far as the callers care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    AdditionalProperties { unexpected: Vec<String> },
    MinLength,
    Const,
    Other,
}

/// One violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// RFC 6901 pointer into the instance ("" for the root).
    pub instance_path: String,
    /// RFC 6901 pointer to the failing keyword inside the schema document
    /// that holds it (`$ref`s are not part of it).
    pub schema_path: String,
    pub kind: ErrorKind,
    pub message: String,
}

/// A schema document by its `$id` (may be empty for the root).
pub struct Document<'a> {
    pub id: &'a str,
    pub contents: &'a Value,
}

/// A compiled schema: the root node and every node reachable from it.
pub struct Validator {
    nodes: Vec<Node>,
    root: usize,
}

enum Node {
    /// `true` (`None`) or `false` (`Some(schema path)`).
    Bool(Option<String>),
    Checks(Vec<Check>),
}

struct Check {
    /// Pointer to the keyword in its document.
    path: String,
    kind: CheckKind,
}

#[derive(Clone, Copy)]
#[repr(u8)]
enum JsonType {
    Null = 1,
    Boolean = 2,
    Integer = 4,
    Number = 8,
    String = 16,
    Array = 32,
    Object = 64,
}

const TYPES: [(JsonType, &str); 7] = [
    (JsonType::Null, "null"),
    (JsonType::Boolean, "boolean"),
    (JsonType::Integer, "integer"),
    (JsonType::Number, "number"),
    (JsonType::String, "string"),
    (JsonType::Array, "array"),
    (JsonType::Object, "object"),
];

enum Additional {
    False,
    Schema(usize),
}

enum CheckKind {
    /// Accepted types as a bit set; `single` when the keyword named one type.
    Type {
        set: u8,
        single: bool,
    },
    Const(Value),
    Enum(Vec<Value>),
    Minimum(Number),
    Maximum(Number),
    MinLength(u64),
    MinItems(u64),
    MaxItems(u64),
    Required(Vec<String>),
    Pattern {
        regex: regex::Regex,
        source: String,
    },
    Properties(Vec<(String, usize)>),
    /// `properties` with `additionalProperties` other than `true`, walked
    /// together; `required1` is a single `required` name checked after the
    /// walk (with its keyword path).
    Closed {
        properties: Vec<(String, usize)>,
        additional: Additional,
        required1: Option<(String, String)>,
    },
    /// `additionalProperties` without `properties`.
    AdditionalFalse,
    AdditionalSchema(usize),
    PropertyNames(usize),
    Items {
        skip: usize,
        node: usize,
    },
    PrefixItems(Vec<usize>),
    AllOf(Vec<usize>),
    AnyOf(Vec<usize>),
    OneOf(Vec<usize>),
    If {
        condition: usize,
        then: Option<usize>,
        otherwise: Option<usize>,
    },
    Ref(usize),
}

impl CheckKind {
    /// The order the keywords of one schema object run in.
    fn priority(&self) -> u8 {
        match self {
            CheckKind::Type { .. } => 1,
            CheckKind::Const(_) => 5,
            CheckKind::Enum(_) => 6,
            CheckKind::Minimum(_) => 10,
            CheckKind::Maximum(_) => 11,
            CheckKind::MinLength(_) => 20,
            CheckKind::MinItems(_) => 22,
            CheckKind::MaxItems(_) => 23,
            CheckKind::Required(_) => 26,
            CheckKind::Pattern { .. } => 30,
            CheckKind::Properties(_) => 40,
            CheckKind::Closed { .. }
            | CheckKind::AdditionalFalse
            | CheckKind::AdditionalSchema(_) => 42,
            CheckKind::PropertyNames(_) => 43,
            CheckKind::Items { .. } => 44,
            CheckKind::PrefixItems(_) => 45,
            CheckKind::AllOf(_) => 50,
            CheckKind::AnyOf(_) => 51,
            CheckKind::OneOf(_) => 52,
            CheckKind::If { .. } => 54,
            CheckKind::Ref(_) => 70,
        }
    }
}

/// Keywords that carry no assertion.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "title",
    "description",
    "default",
    "examples",
    "$comment",
];

fn escape(token: &str) -> std::borrow::Cow<'_, str> {
    if token.bytes().any(|b| b == b'~' || b == b'/') {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

/// `{at}/{token}`, the token escaped.
fn join(at: &str, token: &str) -> String {
    let token = escape(token);
    let mut joined = String::with_capacity(at.len() + 1 + token.len());
    joined.push_str(at);
    joined.push('/');
    joined.push_str(&token);
    joined
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

struct Compiler<'a> {
    documents: &'a [Document<'a>],
    nodes: Vec<Node>,
    /// Subschema (by its address in the documents) to node index, so each
    /// subschema compiles once and recursive references terminate.
    compiled: HashMap<*const Value, usize>,
}

impl Validator {
    /// Compile `documents[0]`; the others are what its `$ref`s may name by
    /// `$id`.
    pub fn compile(documents: &[Document<'_>]) -> Result<Validator, String> {
        if documents.is_empty() {
            return Err("no schema document".to_string());
        }
        let mut compiler = Compiler {
            documents,
            nodes: Vec::new(),
            compiled: HashMap::new(),
        };
        let root = compiler.node(0, documents[0].contents, String::new())?;
        Ok(Validator {
            nodes: compiler.nodes,
            root,
        })
    }

    /// Every violation of `instance`, in the order described in the module
    /// documentation.
    pub fn errors(&self, instance: &Value) -> Vec<ValidationError> {
        let mut out = Out {
            collect: true,
            errors: Vec::new(),
        };
        self.run(self.root, instance, &Loc::Root, 0, &mut out);
        out.errors
    }

    pub fn is_valid(&self, instance: &Value) -> bool {
        self.check(self.root, instance, &Loc::Root, 0)
    }
}

impl<'a> Compiler<'a> {
    /// The node of `schema`, the subschema at `pointer` in `documents[document]`.
    fn node(
        &mut self,
        document: usize,
        schema: &'a Value,
        pointer: String,
    ) -> Result<usize, String> {
        let key: *const Value = schema;
        if let Some(&index) = self.compiled.get(&key) {
            return Ok(index);
        }
        let index = self.nodes.len();
        self.nodes.push(Node::Bool(None));
        self.compiled.insert(key, index);
        let node = match schema {
            Value::Bool(true) => Node::Bool(None),
            Value::Bool(false) => Node::Bool(Some(pointer)),
            Value::Object(map) => Node::Checks(self.checks(document, &pointer, map)?),
            other => {
                return Err(format!(
                    "{pointer:?}: a schema must be an object or a boolean, not {other}"
                ));
            }
        };
        self.nodes[index] = node;
        Ok(index)
    }

    fn children(
        &mut self,
        document: usize,
        at: &str,
        value: &'a Value,
    ) -> Result<Vec<usize>, String> {
        value
            .as_array()
            .ok_or_else(|| format!("{at}: expected an array of schemas"))?
            .iter()
            .enumerate()
            .map(|(i, schema)| self.node(document, schema, join(at, &i.to_string())))
            .collect()
    }

    fn properties(
        &mut self,
        document: usize,
        at: &str,
        value: &'a Value,
    ) -> Result<Vec<(String, usize)>, String> {
        value
            .as_object()
            .ok_or_else(|| format!("{at}: expected an object"))?
            .iter()
            .map(|(name, schema)| {
                let node = self.node(document, schema, join(at, name))?;
                Ok((name.clone(), node))
            })
            .collect()
    }

    fn checks(
        &mut self,
        document: usize,
        pointer: &str,
        map: &'a Map<String, Value>,
    ) -> Result<Vec<Check>, String> {
        let mut checks = Vec::new();
        let additional = map
            .get("additionalProperties")
            .filter(|v| **v != Value::Bool(true));
        let closed = additional.is_some() && map.contains_key("properties");
        let required1 = closed
            && matches!(additional, Some(Value::Bool(false)))
            && matches!(map.get("required"), Some(Value::Array(names)) if names.len() == 1);
        for (keyword, value) in map {
            let at = join(pointer, keyword);
            let kind = match keyword.as_str() {
                "type" => Some(type_check(&at, value)?),
                "const" => Some(CheckKind::Const(value.clone())),
                "enum" => Some(CheckKind::Enum(
                    value
                        .as_array()
                        .ok_or_else(|| format!("{at}: expected an array"))?
                        .clone(),
                )),
                "minimum" => Some(CheckKind::Minimum(number(&at, value)?)),
                "maximum" => Some(CheckKind::Maximum(number(&at, value)?)),
                "minLength" => Some(CheckKind::MinLength(count(&at, value)?)),
                "minItems" => Some(CheckKind::MinItems(count(&at, value)?)),
                "maxItems" => Some(CheckKind::MaxItems(count(&at, value)?)),
                "required" => {
                    let names = strings(&at, value)?;
                    (!required1).then_some(CheckKind::Required(names))
                }
                "pattern" => {
                    let source = value
                        .as_str()
                        .ok_or_else(|| format!("{at}: expected a string"))?
                        .to_string();
                    let regex = super::pattern::regex_source(&source)
                        .and_then(|translated| {
                            regex::Regex::new(&translated).map_err(|e| e.to_string())
                        })
                        .map_err(|e| format!("{at}: {e}"))?;
                    Some(CheckKind::Pattern { regex, source })
                }
                "properties" => {
                    let properties = self.properties(document, &at, value)?;
                    (!closed).then_some(CheckKind::Properties(properties))
                }
                "additionalProperties" => match value {
                    Value::Bool(true) => None,
                    Value::Bool(false) if !closed => Some(CheckKind::AdditionalFalse),
                    _ if !closed => Some(CheckKind::AdditionalSchema(self.node(
                        document,
                        value,
                        at.clone(),
                    )?)),
                    _ => {
                        let properties = self.properties(
                            document,
                            &join(pointer, "properties"),
                            map.get("properties").unwrap_or(&Value::Null),
                        )?;
                        let additional = match value {
                            Value::Bool(false) => Additional::False,
                            _ => Additional::Schema(self.node(document, value, at.clone())?),
                        };
                        let required1 = if required1 {
                            map.get("required")
                                .and_then(Value::as_array)
                                .and_then(|names| names.first())
                                .and_then(Value::as_str)
                                .map(|name| (name.to_string(), format!("{pointer}/required")))
                        } else {
                            None
                        };
                        Some(CheckKind::Closed {
                            properties,
                            additional,
                            required1,
                        })
                    }
                },
                "propertyNames" => Some(CheckKind::PropertyNames(self.node(
                    document,
                    value,
                    at.clone(),
                )?)),
                "items" => {
                    let skip = match map.get("prefixItems") {
                        Some(Value::Array(prefix)) => prefix.len(),
                        _ => 0,
                    };
                    Some(CheckKind::Items {
                        skip,
                        node: self.node(document, value, at.clone())?,
                    })
                }
                "prefixItems" => Some(CheckKind::PrefixItems(self.children(document, &at, value)?)),
                "allOf" => Some(CheckKind::AllOf(self.children(document, &at, value)?)),
                "anyOf" => Some(CheckKind::AnyOf(self.children(document, &at, value)?)),
                "oneOf" => Some(CheckKind::OneOf(self.children(document, &at, value)?)),
                "if" => {
                    let condition = self.node(document, value, at.clone())?;
                    let then = match map.get("then") {
                        Some(then) => Some(self.node(document, then, join(pointer, "then"))?),
                        None => None,
                    };
                    let otherwise = match map.get("else") {
                        Some(otherwise) => {
                            Some(self.node(document, otherwise, join(pointer, "else"))?)
                        }
                        None => None,
                    };
                    Some(CheckKind::If {
                        condition,
                        then,
                        otherwise,
                    })
                }
                // Applied by `if`, and nothing without it.
                "then" | "else" => None,
                "$ref" => {
                    let reference = value
                        .as_str()
                        .ok_or_else(|| format!("{at}: expected a string"))?;
                    let (target, fragment) = self.resolve(document, reference)?;
                    let schema = self.documents[target]
                        .contents
                        .pointer(&fragment)
                        .ok_or_else(|| format!("no subschema at {fragment:?}"))?;
                    Some(CheckKind::Ref(self.node(target, schema, fragment)?))
                }
                other if ANNOTATIONS.contains(&other) => None,
                other => {
                    return Err(format!(
                        "{at}: keyword {other:?} is not supported by the embedded validator"
                    ));
                }
            };
            if let Some(kind) = kind {
                checks.push(Check { path: at, kind });
            }
        }
        checks.sort_by_key(|check| check.kind.priority());
        Ok(checks)
    }

    /// The document and JSON pointer a `$ref` names: a fragment of this
    /// document, or another embedded document by its `$id` (relative to
    /// this one's).
    fn resolve(&self, document: usize, reference: &str) -> Result<(usize, String), String> {
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference, ""),
        };
        if !(fragment.is_empty() || fragment.starts_with('/')) || fragment.contains('%') {
            return Err(format!(
                "$ref {reference:?}: only JSON pointer fragments are supported"
            ));
        }
        let target = if uri.is_empty() {
            document
        } else {
            let base = self.documents[document].id;
            let absolute = if uri.contains("://") {
                uri.to_string()
            } else {
                match base.rfind('/') {
                    Some(slash) => format!("{}{uri}", &base[..=slash]),
                    None => uri.to_string(),
                }
            };
            self.documents
                .iter()
                .position(|d| d.id == absolute)
                .ok_or_else(|| {
                    format!("$ref {reference:?}: no embedded schema has $id {absolute:?}")
                })?
        };
        let pointer = fragment
            .split('/')
            .skip(1)
            .map(|token| join("", &unescape(token)))
            .collect::<String>();
        Ok((target, pointer))
    }
}

fn type_check(at: &str, value: &Value) -> Result<CheckKind, String> {
    let bit = |name: &str| {
        TYPES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(t, _)| *t as u8)
            .ok_or_else(|| format!("{at}: unknown type {name:?}"))
    };
    match value {
        Value::String(name) => Ok(CheckKind::Type {
            set: bit(name)?,
            single: true,
        }),
        Value::Array(names) => {
            let mut set = 0;
            for name in names {
                set |= bit(name
                    .as_str()
                    .ok_or_else(|| format!("{at}: expected type names"))?)?;
            }
            Ok(CheckKind::Type {
                set,
                single: set.count_ones() == 1,
            })
        }
        _ => Err(format!("{at}: expected a type name or an array of them")),
    }
}

fn number(at: &str, value: &Value) -> Result<Number, String> {
    match value {
        Value::Number(n) => Ok(n.clone()),
        _ => Err(format!("{at}: expected a number")),
    }
}

fn count(at: &str, value: &Value) -> Result<u64, String> {
    value
        .as_u64()
        .ok_or_else(|| format!("{at}: expected a non-negative integer"))
}

fn strings(at: &str, value: &Value) -> Result<Vec<String>, String> {
    value
        .as_array()
        .ok_or_else(|| format!("{at}: expected an array of strings"))?
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{at}: expected an array of strings"))
        })
        .collect()
}

/// Where in the instance the walk is, built into a pointer only when an
/// error needs one.
enum Loc<'a> {
    Root,
    Key(&'a Loc<'a>, &'a str),
    Index(&'a Loc<'a>, usize),
}

impl Loc<'_> {
    fn pointer(&self) -> String {
        let mut tokens = Vec::new();
        let mut at = self;
        loop {
            match at {
                Loc::Root => break,
                Loc::Key(parent, key) => {
                    tokens.push(escape(key).into_owned());
                    at = parent;
                }
                Loc::Index(parent, index) => {
                    tokens.push(index.to_string());
                    at = parent;
                }
            }
        }
        tokens.iter().rev().map(|t| format!("/{t}")).collect()
    }
}

struct Out {
    /// Collect every error (or stop at the first failure, building none).
    collect: bool,
    errors: Vec<ValidationError>,
}

impl Out {
    /// `check` over every item: false when any failed. Without collecting,
    /// the first failure ends the walk (nothing more can change the
    /// answer).
    fn every<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut check: impl FnMut(&mut Out, T) -> bool,
    ) -> bool {
        let mut valid = true;
        for item in items {
            if !check(self, item) {
                valid = false;
                if !self.collect {
                    return false;
                }
            }
        }
        valid
    }

    fn push(
        &mut self,
        loc: &Loc<'_>,
        path: &str,
        kind: ErrorKind,
        message: impl FnOnce() -> String,
    ) {
        if self.collect {
            self.errors.push(ValidationError {
                instance_path: loc.pointer(),
                schema_path: path.to_string(),
                kind,
                message: message(),
            });
        }
    }
}

fn type_of(value: &Value) -> u8 {
    match value {
        Value::Null => JsonType::Null as u8,
        Value::Bool(_) => JsonType::Boolean as u8,
        Value::Number(n) => {
            let integral = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
            if integral {
                JsonType::Integer as u8 | JsonType::Number as u8
            } else {
                JsonType::Number as u8
            }
        }
        Value::String(_) => JsonType::String as u8,
        Value::Array(_) => JsonType::Array as u8,
        Value::Object(_) => JsonType::Object as u8,
    }
}

/// Exact order of two JSON numbers (integers beyond 2^53 included).
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    fn int(n: &Number) -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    }
    fn float_int(f: f64, i: i128) -> Option<Ordering> {
        if f.is_nan() {
            return None;
        }
        // Beyond i128's range the float's sign decides.
        if f >= 1e38 {
            return Some(Ordering::Greater);
        }
        if f <= -1e38 {
            return Some(Ordering::Less);
        }
        let floor = f.floor();
        // `floor` is integral and within range, so the cast is exact.
        let whole = floor as i128;
        match whole.cmp(&i) {
            Ordering::Equal if f > floor => Some(Ordering::Greater),
            order @ (Ordering::Less | Ordering::Equal) => Some(order),
            Ordering::Greater => Some(Ordering::Greater),
        }
    }
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (None, Some(y)) => float_int(a.as_f64()?, y),
        (Some(x), None) => float_int(b.as_f64()?, x).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality, numbers by value (1 equals 1.0).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, a)| y.get(key).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl Validator {
    fn check(&self, node: usize, instance: &Value, loc: &Loc<'_>, depth: usize) -> bool {
        let mut out = Out {
            collect: false,
            errors: Vec::new(),
        };
        self.run(node, instance, loc, depth, &mut out)
    }

    /// Validate `instance` at `loc` against `node`: whether it is valid;
    /// errors go to `out` when it collects.
    fn run(
        &self,
        node: usize,
        instance: &Value,
        loc: &Loc<'_>,
        depth: usize,
        out: &mut Out,
    ) -> bool {
        // Nested instances recurse through here; grow the stack on demand
        // (as the YAML reader does) so the depth cap, not the thread's
        // stack, decides.
        if depth < UNCHECKED_DEPTH {
            return self.run_node(node, instance, loc, depth, out);
        }
        stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
            self.run_node(node, instance, loc, depth, out)
        })
    }

    fn run_node(
        &self,
        node: usize,
        instance: &Value,
        loc: &Loc<'_>,
        depth: usize,
        out: &mut Out,
    ) -> bool {
        if depth > MAX_NODE_DEPTH {
            out.push(loc, "", ErrorKind::Other, || {
                format!("schema validation nested deeper than {MAX_NODE_DEPTH} levels")
            });
            return false;
        }
        let checks = match self.nodes.get(node) {
            Some(Node::Checks(checks)) => checks,
            Some(Node::Bool(None)) => return true,
            Some(Node::Bool(Some(path))) => {
                out.push(loc, path, ErrorKind::Other, || {
                    format!("False schema does not allow {instance}")
                });
                return false;
            }
            None => {
                out.push(loc, "", ErrorKind::Other, || {
                    "schema node missing".to_string()
                });
                return false;
            }
        };
        let mut valid = true;
        for check in checks {
            if !self.apply(check, instance, loc, depth + 1, out) {
                valid = false;
                if !out.collect {
                    return false;
                }
            }
        }
        valid
    }

    #[allow(clippy::too_many_lines)] // one arm per keyword
    fn apply(
        &self,
        check: &Check,
        instance: &Value,
        loc: &Loc<'_>,
        depth: usize,
        out: &mut Out,
    ) -> bool {
        let path = check.path.as_str();
        match &check.kind {
            CheckKind::Type { set, single } => {
                if type_of(instance) & set != 0 {
                    return true;
                }
                out.push(loc, path, ErrorKind::Other, || {
                    let names: Vec<String> = TYPES
                        .iter()
                        .filter(|(t, _)| *t as u8 & set != 0)
                        .map(|(_, name)| format!("\"{name}\""))
                        .collect();
                    if *single {
                        format!("{instance} is not of type {}", names.join(", "))
                    } else {
                        format!("{instance} is not of types {}", names.join(", "))
                    }
                });
                false
            }
            CheckKind::Const(expected) => {
                if equal(expected, instance) {
                    return true;
                }
                out.push(loc, path, ErrorKind::Const, || {
                    format!("{expected} was expected")
                });
                false
            }
            CheckKind::Enum(options) => {
                if options.iter().any(|option| equal(option, instance)) {
                    return true;
                }
                out.push(loc, path, ErrorKind::Other, || {
                    enum_message(instance, options)
                });
                false
            }
            CheckKind::Minimum(limit) => match instance {
                Value::Number(n) if compare(n, limit) == Some(Ordering::Less) => {
                    out.push(loc, path, ErrorKind::Other, || {
                        format!("{instance} is less than the minimum of {limit}")
                    });
                    false
                }
                _ => true,
            },
            CheckKind::Maximum(limit) => match instance {
                Value::Number(n) if compare(n, limit) == Some(Ordering::Greater) => {
                    out.push(loc, path, ErrorKind::Other, || {
                        format!("{instance} is greater than the maximum of {limit}")
                    });
                    false
                }
                _ => true,
            },
            CheckKind::MinLength(limit) => match instance {
                Value::String(s) if (s.chars().count() as u64) < *limit => {
                    out.push(loc, path, ErrorKind::MinLength, || {
                        format!(
                            "{instance} is shorter than {limit} character{}",
                            plural(*limit)
                        )
                    });
                    false
                }
                _ => true,
            },
            CheckKind::MinItems(limit) => match instance {
                Value::Array(items) if (items.len() as u64) < *limit => {
                    out.push(loc, path, ErrorKind::Other, || {
                        format!("{instance} has less than {limit} item{}", plural(*limit))
                    });
                    false
                }
                _ => true,
            },
            CheckKind::MaxItems(limit) => match instance {
                Value::Array(items) if (items.len() as u64) > *limit => {
                    out.push(loc, path, ErrorKind::Other, || {
                        format!("{instance} has more than {limit} item{}", plural(*limit))
                    });
                    false
                }
                _ => true,
            },
            CheckKind::Required(names) => {
                let Value::Object(object) = instance else {
                    return true;
                };
                let mut valid = true;
                for name in names {
                    if !object.contains_key(name) {
                        valid = false;
                        out.push(loc, path, ErrorKind::Other, || required_message(name));
                        if !out.collect {
                            break;
                        }
                    }
                }
                valid
            }
            CheckKind::Pattern { regex, source } => match instance {
                Value::String(s) if !regex.is_match(s) => {
                    out.push(loc, path, ErrorKind::Other, || {
                        format!("{instance} does not match \"{source}\"")
                    });
                    false
                }
                _ => true,
            },
            CheckKind::Properties(properties) => {
                let Value::Object(object) = instance else {
                    return true;
                };
                out.every(properties, |out, (name, node)| match object.get(name) {
                    Some(value) => self.run(*node, value, &Loc::Key(loc, name), depth, out),
                    None => true,
                })
            }
            CheckKind::Closed {
                properties,
                additional,
                required1,
            } => {
                let Value::Object(object) = instance else {
                    return true;
                };
                let mut valid = true;
                let mut unexpected = Vec::new();
                for (name, value) in object {
                    let known = properties
                        .binary_search_by(|(key, _)| key.as_str().cmp(name))
                        .ok()
                        .and_then(|i| properties.get(i));
                    let node = match (known, additional) {
                        (Some((_, node)), _) => *node,
                        (None, Additional::Schema(node)) => *node,
                        (None, Additional::False) => {
                            unexpected.push(name.clone());
                            valid = false;
                            if !out.collect {
                                return false;
                            }
                            continue;
                        }
                    };
                    if !self.run(node, value, &Loc::Key(loc, name), depth, out) {
                        valid = false;
                        if !out.collect {
                            return false;
                        }
                    }
                }
                if !unexpected.is_empty() {
                    let message = additional_message(&unexpected);
                    out.push(
                        loc,
                        path,
                        ErrorKind::AdditionalProperties { unexpected },
                        || message,
                    );
                }
                if let Some((name, at)) = required1
                    && !object.contains_key(name)
                {
                    valid = false;
                    out.push(loc, at, ErrorKind::Other, || required_message(name));
                }
                valid
            }
            CheckKind::AdditionalFalse => match instance {
                Value::Object(object) => match object.values().next() {
                    Some(first) => {
                        out.push(loc, path, ErrorKind::Other, || {
                            format!("False schema does not allow {first}")
                        });
                        false
                    }
                    None => true,
                },
                _ => true,
            },
            CheckKind::AdditionalSchema(node) => {
                let Value::Object(object) = instance else {
                    return true;
                };
                out.every(object, |out, (name, value)| {
                    self.run(*node, value, &Loc::Key(loc, name), depth, out)
                })
            }
            CheckKind::PropertyNames(node) => {
                let Value::Object(object) = instance else {
                    return true;
                };
                let mut valid = true;
                for name in object.keys() {
                    let name = Value::String(name.clone());
                    let mut inner = Out {
                        collect: out.collect,
                        errors: Vec::new(),
                    };
                    if !self.run(*node, &name, loc, depth, &mut inner) {
                        valid = false;
                        if !out.collect {
                            return false;
                        }
                    }
                    // The name's own errors, reported at the object, as
                    // propertyNames errors.
                    out.errors
                        .extend(inner.errors.into_iter().map(|e| ValidationError {
                            kind: ErrorKind::Other,
                            ..e
                        }));
                }
                valid
            }
            CheckKind::Items { skip, node } => {
                let Value::Array(items) = instance else {
                    return true;
                };
                out.every(
                    items.iter().enumerate().skip(*skip),
                    |out, (index, item)| self.run(*node, item, &Loc::Index(loc, index), depth, out),
                )
            }
            CheckKind::PrefixItems(nodes) => {
                let Value::Array(items) = instance else {
                    return true;
                };
                out.every(
                    items.iter().zip(nodes).enumerate(),
                    |out, (index, (item, node))| {
                        self.run(*node, item, &Loc::Index(loc, index), depth, out)
                    },
                )
            }
            CheckKind::AllOf(nodes) => out.every(nodes, |out, node| {
                self.run(*node, instance, loc, depth, out)
            }),
            CheckKind::AnyOf(nodes) => {
                if nodes
                    .iter()
                    .any(|node| self.check(*node, instance, loc, depth))
                {
                    return true;
                }
                out.push(loc, path, ErrorKind::Other, || {
                    format!("{instance} is not valid under any of the schemas listed in the 'anyOf' keyword")
                });
                false
            }
            CheckKind::OneOf(nodes) => {
                let mut passing = 0;
                for node in nodes {
                    if self.check(*node, instance, loc, depth) {
                        passing += 1;
                        if passing > 1 {
                            break;
                        }
                    }
                }
                match passing {
                    1 => true,
                    0 => {
                        out.push(loc, path, ErrorKind::Other, || {
                            format!("{instance} is not valid under any of the schemas listed in the 'oneOf' keyword")
                        });
                        false
                    }
                    _ => {
                        out.push(loc, path, ErrorKind::Other, || {
                            format!("{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword")
                        });
                        false
                    }
                }
            }
            CheckKind::If {
                condition,
                then,
                otherwise,
            } => {
                let branch = if self.check(*condition, instance, loc, depth) {
                    then
                } else {
                    otherwise
                };
                match branch {
                    Some(node) => self.run(*node, instance, loc, depth, out),
                    None => true,
                }
            }
            CheckKind::Ref(node) => self.run(*node, instance, loc, depth, out),
        }
    }
}

fn required_message(name: &str) -> String {
    format!("{} is a required property", Value::String(name.to_string()))
}

fn additional_message(unexpected: &[String]) -> String {
    let list: Vec<String> = unexpected.iter().map(|k| format!("'{k}'")).collect();
    format!(
        "Additional properties are not allowed ({} {} unexpected)",
        list.join(", "),
        if unexpected.len() == 1 { "was" } else { "were" }
    )
}

/// `x is not one of a, b or c`; past three options, the first two and how
/// many others.
fn enum_message(instance: &Value, options: &[Value]) -> String {
    let shown: Vec<String> = if options.len() <= 3 {
        options.iter().map(Value::to_string).collect()
    } else {
        options.iter().take(2).map(Value::to_string).collect()
    };
    let mut message = format!("{instance} is not one of ");
    if options.len() <= 3 {
        for (i, option) in shown.iter().enumerate() {
            if i == 0 {
                message.push_str(option);
            } else if i + 1 == shown.len() {
                message.push_str(&format!(" or {option}"));
            } else {
                message.push_str(&format!(", {option}"));
            }
        }
    } else {
        message.push_str(&shown.join(", "));
        message.push_str(&format!(" or {} other candidates", options.len() - 2));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile(schema: &Value) -> Result<Validator, String> {
        Validator::compile(&[Document {
            id: "",
            contents: schema,
        }])
    }

    #[test]
    fn unknown_keywords_fail_compilation() {
        let error = compile(&json!({"type": "object", "maxProperties": 3}))
            .err()
            .unwrap_or_default();
        assert!(error.contains("maxProperties"), "{error}");
        assert!(compile(&json!({"properties": {"a": {"format": "uri"}}})).is_err());
    }

    /// A pattern this build cannot match as written (src/schema/pattern.rs)
    /// fails the schema's compilation, naming the keyword.
    #[test]
    fn patterns_beyond_the_built_in_tables_fail_compilation() {
        for pattern in ["(?i)held", "^\\p{L}+$", "^(?i:a.c)$"] {
            let error = compile(&json!({"properties": {"v": {"pattern": pattern}}}))
                .err()
                .unwrap_or_default();
            assert!(error.contains("/properties/v/pattern"), "{error}");
        }
        assert!(compile(&json!({"pattern": "^(?i:held|drift)$"})).is_ok());
    }

    #[test]
    fn schema_paths_escape_their_tokens_and_follow_references() {
        let v = compile(&json!({
            "$defs": {"a/b~c": {"type": "string"}},
            "properties": {"x/y": {"$ref": "#/$defs/a~1b~0c"}, "z": {"minimum": 1}},
        }))
        .unwrap();
        let errors = v.errors(&json!({"x/y": 1, "z": 0}));
        let paths: Vec<&str> = errors.iter().map(|e| e.schema_path.as_str()).collect();
        assert_eq!(paths, ["/$defs/a~1b~0c/type", "/properties/z/minimum"]);
        assert_eq!(errors[0].instance_path, "/x~1y");
        // The same subschema reached twice compiles once.
        let twice = compile(&json!({
            "$defs": {"s": {"type": "string"}},
            "properties": {"a": {"$ref": "#/$defs/s"}, "b": {"$ref": "#/$defs/s"}},
        }))
        .unwrap();
        let shared = twice.nodes.len();
        let once = compile(&json!({
            "$defs": {"s": {"type": "string"}},
            "properties": {"a": {"$ref": "#/$defs/s"}},
        }))
        .unwrap();
        assert_eq!(
            shared,
            once.nodes.len() + 1,
            "one more node: `b`, not its target"
        );
        let error = compile(&json!({"$ref": "#/$defs/none"}))
            .err()
            .unwrap_or_default();
        assert!(error.contains("no subschema at \"/$defs/none\""), "{error}");
    }

    #[test]
    fn numbers_compare_exactly() {
        let v = compile(
            &json!({"maximum": 18446744073709551615_u64, "minimum": -9223372036854775808_i64}),
        )
        .unwrap();
        assert!(v.is_valid(&json!(18446744073709551615_u64)));
        assert!(!v.is_valid(&json!(1.8446744073709552e19)));
        assert!(v.is_valid(&json!(-9223372036854775808_i64)));
        let v = compile(&json!({"minimum": 1})).unwrap();
        assert!(!v.is_valid(&json!(0.5)));
        assert!(v.is_valid(&json!(1.0)));
    }

    #[test]
    fn integral_floats_are_integers_and_lengths_count_code_points() {
        let v = compile(&json!({"type": "integer"})).unwrap();
        assert!(v.is_valid(&json!(1.0)));
        assert!(!v.is_valid(&json!(1.5)));
        let v = compile(&json!({"minLength": 2})).unwrap();
        assert!(!v.is_valid(&json!("é")));
    }

    #[test]
    fn deep_recursion_is_an_error_not_a_crash() {
        let v = compile(
            &json!({"$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}),
        )
        .unwrap();
        let mut deep = json!(1);
        for _ in 0..300 {
            deep = json!([deep]);
        }
        let errors = v.errors(&deep);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains("nested deeper"));
    }

    #[test]
    fn a_reference_cycle_without_descent_stops() {
        let v = compile(&json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}))
            .unwrap();
        assert!(!v.is_valid(&json!(1)));
    }
}
