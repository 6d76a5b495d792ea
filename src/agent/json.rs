//! A JSON value that keeps object keys in file order, for editing a
//! harness's settings file without reordering what others wrote.
//! (`serde_json::Value` sorts keys unless the crate-wide `preserve_order`
//! feature is on, which would change every other JSON this tool prints.)

use super::AgentError;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A JSON value; objects are ordered lists of unique keys.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn object() -> Json {
        Json::Object(Vec::new())
    }

    pub fn str(text: &str) -> Json {
        Json::String(text.to_string())
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(pairs) => pairs.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Set `key` in an object: in place when present, else appended.
    pub fn insert(&mut self, key: &str, value: Json) {
        if let Json::Object(pairs) = self {
            match pairs.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => pairs.push((key.to_string(), value)),
            }
        }
    }

    /// Remove `key` from an object.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        match self {
            Json::Object(pairs) => {
                let at = pairs.iter().position(|(k, _)| k == key)?;
                Some(pairs.remove(at).1)
            }
            _ => None,
        }
    }

    /// Parse one JSON document; a key repeated in an object is an error.
    pub fn parse(bytes: &[u8]) -> Result<Json, AgentError> {
        serde_json::from_slice(bytes).map_err(AgentError::Json)
    }

    /// Pretty-printed with two-space indentation and a final newline.
    pub fn to_pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = serializer.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut pairs: Vec<(String, Json)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            if pairs.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format!("the key `{key}` is repeated")));
            }
            pairs.push((key, value));
        }
        Ok(Json::Object(pairs))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_round_trips() {
        let text = "{\n  \"zeta\": 1,\n  \"alpha\": [\n    true,\n    null,\n    2.5,\n    \"x\"\n  ],\n  \"mid\": {\n    \"b\": {},\n    \"a\": []\n  }\n}\n";
        let value = Json::parse(text.as_bytes()).unwrap();
        assert_eq!(value.to_pretty(), text);
        let mut value = value;
        value.insert("alpha", Json::Null);
        value.insert("new", Json::str("n"));
        assert!(value.remove("zeta").is_some());
        let keys: Vec<&str> = match &value {
            Json::Object(pairs) => pairs.iter().map(|(k, _)| k.as_str()).collect(),
            _ => vec![],
        };
        assert_eq!(keys, ["alpha", "mid", "new"]);
    }

    #[test]
    fn refuses_repeated_keys_and_garbage() {
        assert!(Json::parse(b"{\"a\": 1, \"a\": 2}").is_err());
        assert!(Json::parse(b"{").is_err());
        assert!(Json::parse(b"[1, 2] 3").is_err());
    }
}
