//! Native `math` functions.

use super::{Cx, float, int, wrong_args};
use crate::error::RunError;
use crate::value::Value;

type R = Result<Value, RunError>;

pub(super) fn abs(_: &Cx, a: &[Value]) -> R {
    match a {
        [Value::Int(n)] => n
            .checked_abs()
            .map(Value::Int)
            .ok_or_else(|| RunError::overflow(&format!("math.abs({n})"))),
        [Value::Float(x)] => Ok(Value::Float(x.abs())),
        _ => Err(wrong_args("math.abs")),
    }
}

pub(super) fn min(_: &Cx, a: &[Value]) -> R {
    match a {
        [Value::Int(x), Value::Int(y)] => Ok(Value::Int(*x.min(y))),
        [Value::Float(x), Value::Float(y)] => Ok(Value::Float(if y < x { *y } else { *x })),
        _ => Err(wrong_args("math.min")),
    }
}

pub(super) fn max(_: &Cx, a: &[Value]) -> R {
    match a {
        [Value::Int(x), Value::Int(y)] => Ok(Value::Int(*x.max(y))),
        [Value::Float(x), Value::Float(y)] => Ok(Value::Float(if y > x { *y } else { *x })),
        _ => Err(wrong_args("math.max")),
    }
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
    Ok(Value::Float(
        float(b, "math.pow")?.powf(float(e, "math.pow")?),
    ))
}

pub(super) fn ipow(cx: &Cx, a: &[Value]) -> R {
    let [b, e] = a else {
        return Err(wrong_args("math.ipow"));
    };
    let (b, e) = (int(b, "math.ipow")?, int(e, "math.ipow")?);
    let r = u32::try_from(e).ok().and_then(|e| b.checked_pow(e));
    Ok(cx.option(r.map(Value::Int)))
}

pub(super) fn sqrt(cx: &Cx, a: &[Value]) -> R {
    let x = unary(a, "math.sqrt")?;
    Ok(cx.option((x >= 0.0).then(|| Value::Float(x.sqrt()))))
}

pub(super) fn floor(_: &Cx, a: &[Value]) -> R {
    Ok(Value::Float(unary(a, "math.floor")?.floor()))
}

pub(super) fn ceil(_: &Cx, a: &[Value]) -> R {
    Ok(Value::Float(unary(a, "math.ceil")?.ceil()))
}

pub(super) fn round(_: &Cx, a: &[Value]) -> R {
    Ok(Value::Float(unary(a, "math.round")?.round()))
}

pub(super) fn to_int(cx: &Cx, a: &[Value]) -> R {
    let x = unary(a, "math.to_int")?.trunc();
    // 2^63 is exactly representable; every float below it in magnitude
    // converts exactly after truncation.
    let fits = (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x);
    Ok(cx.option(fits.then_some(Value::Int(x as i64))))
}

pub(super) fn to_float(_: &Cx, a: &[Value]) -> R {
    match a {
        [n] => Ok(Value::Float(int(n, "math.to_float")? as f64)),
        _ => Err(wrong_args("math.to_float")),
    }
}

pub(super) fn pi(_: &Cx, a: &[Value]) -> R {
    match a {
        [] => Ok(Value::Float(std::f64::consts::PI)),
        _ => Err(wrong_args("math.pi")),
    }
}
