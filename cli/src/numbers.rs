//! Numbers a person can read: floating-point values in their shortest
//! round-trip form, `%g`-like (an exponent for very small and very large
//! magnitudes, as gdb prints), and the JSON form of NaN and infinities.

use serde_json::Value;

/// A float value as text: the shortest decimal that reads back as the same
/// f32 (`single`) or f64, `%g`-like (the one implementation, shared with the
/// daemon's and the preload's formatting, is `gldbg_proto::api::float_text`).
pub fn float_text(v: f64, single: bool) -> String {
    gldbg_proto::api::float_text(v, single)
}

/// A float in JSON: the number (an f32 as the shortest decimal of its value,
/// so 0.1f reads 0.1), or for NaN and infinities the strings `"NaN"`,
/// `"Inf"`, `"-Inf"` (CLI.md): JSON has no such numbers, and `null` alone
/// would not say which.
pub fn float_json(v: f64, single: bool) -> Value {
    if v.is_nan() {
        return Value::from("NaN");
    }
    if v.is_infinite() {
        return Value::from(if v > 0.0 { "Inf" } else { "-Inf" });
    }
    if single {
        let short: f64 = format!("{}", v as f32).parse().unwrap_or(v);
        Value::from(short)
    } else {
        Value::from(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_round_trip_with_an_exponent_where_positional_is_long() {
        let f = |v: f32| float_text(v as f64, true);
        assert_eq!(f(-2.2318231e-35), "-2.2318231e-35");
        assert_eq!(f(1.8e-42), "1.8e-42"); // subnormal
        assert_eq!(f(0.1), "0.1");
        assert_eq!(f(0.0001), "0.0001");
        assert_eq!(f(0.00001), "1e-5");
        assert_eq!(f(31.5), "31.5");
        assert_eq!(f(-0.0), "-0");
        assert_eq!(f(0.0), "0");
        assert_eq!(f(16777216.0), "16777216");
        assert_eq!(f(123456790.0), "123456790");
        assert_eq!(f(1e9), "1e9");
        assert_eq!(f(3.4028235e38), "3.4028235e38");
        assert_eq!(f(f32::NAN), "NaN");
        assert_eq!(f(f32::NEG_INFINITY), "-inf");
        // Every f32 text reads back as the same f32.
        for v in [1.0e-30f32, 7.006492e-45, 0.33333334, 2.5e12, -9.999999e-5] {
            assert_eq!(f(v).parse::<f32>().unwrap(), v, "{v}");
        }
    }

    #[test]
    fn doubles_keep_their_precision() {
        let d = |v: f64| float_text(v, false);
        assert_eq!(d(0.1), "0.1");
        assert_eq!(d(1.0 / 3.0), "0.3333333333333333");
        assert_eq!(d(1e-300), "1e-300");
        assert_eq!(d(12345678901234567.0), "12345678901234568");
        assert_eq!(d(123456789012345678.0), "1.2345678901234568e17");
        assert_eq!(d(1234567890123456.0), "1234567890123456");
    }

    #[test]
    fn json_numbers_and_non_finite_strings() {
        assert_eq!(float_json(0.1f32 as f64, true), serde_json::json!(0.1));
        assert_eq!(
            float_json(-2.2318231e-35f32 as f64, true).to_string(),
            "-2.2318231e-35"
        );
        assert_eq!(float_json(f64::NAN, true), serde_json::json!("NaN"));
        assert_eq!(float_json(f64::INFINITY, false), serde_json::json!("Inf"));
        assert_eq!(
            float_json(f64::NEG_INFINITY, true),
            serde_json::json!("-Inf")
        );
    }
}
