//! Typed reads of a request's arguments: a missing or ill-typed one is an
//! error message naming it.

use serde_json::Value;

/// A string argument, if present; an error if it has another type.
pub fn opt_str<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("argument '{key}' must be a string")),
    }
}

pub fn req_str<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    opt_str(args, key)?.ok_or_else(|| format!("missing argument '{key}'"))
}

pub fn opt_bool(args: &Value, key: &str) -> Result<Option<bool>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("argument '{key}' must be true or false")),
    }
}

pub fn req_i64(args: &Value, key: &str) -> Result<i64, String> {
    match args.get(key) {
        None | Some(Value::Null) => Err(format!("missing argument '{key}'")),
        Some(v) => v
            .as_i64()
            .ok_or_else(|| format!("argument '{key}' must be an integer")),
    }
}
