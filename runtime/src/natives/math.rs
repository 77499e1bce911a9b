//! Native `math` functions.

use super::{Cx, float, int, wrong_args};
use crate::error::RunError;
use crate::value::{Repr, Value};
use std::cmp::Ordering;

type R = Result<Value, RunError>;

pub(super) fn abs(_: &Cx, a: &[Value]) -> R {
    match a {
        [Value(Repr::Int(n))] => n
            .checked_abs()
            .map(Value::int)
            .ok_or_else(|| RunError::overflow(&format!("math.abs({n})"))),
        [Value(Repr::Float(x))] => Ok(Value::float(x.get().abs())),
        _ => Err(wrong_args("math.abs")),
    }
}

pub(super) fn min(_: &Cx, a: &[Value]) -> R {
    match a {
        [Value(Repr::Int(x)), Value(Repr::Int(y))] => Ok(Value(Repr::Int(*x.min(y)))),
        [Value(Repr::Float(x)), Value(Repr::Float(y))] => {
            Ok(Value::float(float_pick(x.get(), y.get(), Ordering::Less)))
        }
        _ => Err(wrong_args("math.min")),
    }
}

pub(super) fn max(_: &Cx, a: &[Value]) -> R {
    match a {
        [Value(Repr::Int(x)), Value(Repr::Int(y))] => Ok(Value(Repr::Int(*x.max(y)))),
        [Value(Repr::Float(x)), Value(Repr::Float(y))] => Ok(Value::float(float_pick(
            x.get(),
            y.get(),
            Ordering::Greater,
        ))),
        _ => Err(wrong_args("math.max")),
    }
}

/// The smaller (`want` = `Less`) or larger of two floats: NaN if either is
/// NaN, and `-0.0` below `0.0`, as IEEE 754's `minimum` and `maximum` say.
fn float_pick(x: f64, y: f64, want: Ordering) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x.total_cmp(&y) == want { x } else { y }
}

fn unary(a: &[Value], name: &str) -> Result<f64, RunError> {
    match a {
        [x] => float(x, name),
        _ => Err(wrong_args(name)),
    }
}

pub(super) fn pow(_: &Cx, a: &[Value]) -> R {
    let [b, e] = a else {
        return Err(wrong_args("math.pow"));
    };
    Ok(Value::float(
        float(b, "math.pow")?.powf(float(e, "math.pow")?),
    ))
}

pub(super) fn ipow(cx: &Cx, a: &[Value]) -> R {
    let [b, e] = a else {
        return Err(wrong_args("math.ipow"));
    };
    let (b, e) = (int(b, "math.ipow")?, int(e, "math.ipow")?);
    let r = match (b, e) {
        (_, e) if e < 0 => None,
        // Bases whose powers never grow, for any exponent.
        (0, 0) | (1, _) => Some(1),
        (0, _) => Some(0),
        (-1, e) => Some(if e % 2 == 0 { 1 } else { -1 }),
        // Any other base overflows long before 2^32.
        (b, e) => u32::try_from(e).ok().and_then(|e| b.checked_pow(e)),
    };
    Ok(cx.option(r.map(Value::int)))
}

pub(super) fn sqrt(cx: &Cx, a: &[Value]) -> R {
    let x = unary(a, "math.sqrt")?;
    Ok(cx.option((x >= 0.0).then(|| Value::float(x.sqrt()))))
}

pub(super) fn floor(_: &Cx, a: &[Value]) -> R {
    Ok(Value::float(unary(a, "math.floor")?.floor()))
}

pub(super) fn ceil(_: &Cx, a: &[Value]) -> R {
    Ok(Value::float(unary(a, "math.ceil")?.ceil()))
}

pub(super) fn round(_: &Cx, a: &[Value]) -> R {
    Ok(Value::float(unary(a, "math.round")?.round()))
}

pub(super) fn to_int(cx: &Cx, a: &[Value]) -> R {
    let x = unary(a, "math.to_int")?.trunc();
    // 2^63 is exactly representable; every float below it in magnitude
    // converts exactly after truncation.
    let fits = (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x);
    Ok(cx.option(fits.then_some(Value(Repr::Int(x as i64)))))
}

pub(super) fn to_float(_: &Cx, a: &[Value]) -> R {
    match a {
        [n] => Ok(Value::float(int(n, "math.to_float")? as f64)),
        _ => Err(wrong_args("math.to_float")),
    }
}

pub(super) fn pi(_: &Cx, a: &[Value]) -> R {
    match a {
        [] => Ok(Value::float(std::f64::consts::PI)),
        _ => Err(wrong_args("math.pi")),
    }
}
