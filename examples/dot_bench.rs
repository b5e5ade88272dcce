//! The int8 dot product on this CPU: each variant memstr can run (src/index/dot.rs), timed
//! on the same points, beside the portable loop.
//!
//!   cargo run --release --example dot_bench [-- --points 100000 --dims 384 --rounds 7]
//!
//! Every variant must return the portable sum for every point (it stops otherwise). Prints
//! the median over rounds of the time per dot product, and which variant searches use.

use std::time::Instant;

use memstr::index::dot;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut points, mut dims, mut rounds) = (100_000usize, 384usize, 7usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || -> Result<usize, Box<dyn std::error::Error>> {
            Ok(args.next().ok_or(format!("{a} needs a value"))?.parse()?)
        };
        match a.as_str() {
            "--points" => points = value()?,
            "--dims" => dims = value()?,
            "--rounds" => rounds = value()?.max(1),
            _ => return Err(format!("usage: dot_bench [--points N] [--dims N] [--rounds N]; not {a}").into()),
        }
    }
    if points == 0 || dims == 0 {
        return Err("--points and --dims must be at least 1".into());
    }
    // Deterministic components within ±127, as memstr quantizes them.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<i8> = (0..(points + 1) * dims)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (i16::from((state >> 56) as u8 % 255) - 127) as i8
        })
        .collect();
    let (q, rest) = data.split_at(dims);
    let variants = dot::variants();
    let want: Vec<i32> = rest.chunks_exact(dims).map(|p| (variants[0].1)(q, p)).collect();
    println!("dot_bench: {points} points of {dims} int8 components, median of {rounds} rounds");
    println!("searches use: {}", dot::chosen());
    println!("{:<10} {:>12} {:>10}", "variant", "ns per dot", "speed-up");
    let mut portable_ns = None;
    for (name, f) in &variants {
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t = Instant::now();
            let mut sum = 0i64;
            for p in rest.chunks_exact(dims) {
                sum += i64::from(f(q, p));
            }
            times.push(t.elapsed().as_secs_f64() * 1e9 / points as f64);
            std::hint::black_box(sum);
        }
        if rest.chunks_exact(dims).zip(&want).any(|(p, w)| f(q, p) != *w) {
            return Err(format!("{name} disagrees with the portable sum").into());
        }
        times.sort_by(f64::total_cmp);
        let ns = times[times.len() / 2];
        let base = *portable_ns.get_or_insert(ns);
        println!("{name:<10} {ns:>12.1} {:>9.2}x", base / ns);
    }
    Ok(())
}
