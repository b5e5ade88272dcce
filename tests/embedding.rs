//! The default embedder runs the real all-MiniLM-L6-v2 int8 ONNX model, installed from
//! PyPI packages (scripts/models/fetch.sh), and agrees with the reference vector.

mod support;

use memstr::index::{Embedder, OnnxEmbedder};

/// ../shared/bench/locomo-dev/README.md: the first 8 dims of the reference embedding.
const REFERENCE: [f32; 8] = [0.041831, 0.058665, 0.051349, 0.075391, 0.025781, -0.037471, 0.000152, -0.060606];

fn embedder() -> OnnxEmbedder {
    support::onnx_embedder()
}

#[test]
fn default_model_matches_the_reference_vector() {
    let e = embedder();
    assert_eq!(e.dims(), 384);
    let v = &e.embed(&["The quick brown fox jumps over the lazy dog."]).unwrap()[0];
    let max_diff = v.iter().zip(REFERENCE).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(max_diff < 1e-4, "max |diff| {max_diff}: {:?}", &v[..8]);
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5);
}

#[test]
fn batches_agree_with_single_texts_and_meaning_is_captured() {
    let e = embedder();
    let texts = [
        "Alice prefers dark mode.",
        "The weather was cold and rainy in Oslo.",
        "Alice likes a dark theme in her editor.",
    ];
    let batch = e.embed(&texts).unwrap();
    for (t, b) in texts.iter().zip(&batch) {
        let single = &e.embed(&[t]).unwrap()[0];
        let diff = single.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        assert!(diff < 1e-4, "padding changed the vector of {t:?} by {diff}");
    }
    let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!(cos(&batch[0], &batch[2]) > cos(&batch[0], &batch[1]) + 0.2, "paraphrases are closer than unrelated text");
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = OnnxEmbedder::load(&dir.path().join("libonnxruntime.so"), dir.path(), "x").unwrap_err().to_string();
    assert!(err.contains("memstr model install"), "{err}");
}

/// Search ranks by the int8 form of the model's vectors (src/index/vectors.rs): on real
/// sentences its cosine stays within 0.006 of the f32 one (0.0049 measured), and no
/// component is clamped.
#[test]
fn int8_points_keep_the_models_cosines() {
    use memstr::index::vectors::{cosine_i8, quantize};
    let texts = [
        "We adopted a puppy named Biscuit last spring",
        "The quarterly budget review is on Friday",
        "Alice prefers dark editor themes",
        "My flight to Lisbon leaves at 7 in the morning",
        "Grandma's lasagna recipe needs ricotta and fresh basil",
        "The dentist moved my appointment to next Tuesday",
        "I ran a half marathon in under two hours",
        "The server crashed because the disk was full",
        "Bob is allergic to peanuts and shellfish",
        "We watched the meteor shower from the lake house",
    ];
    let e = embedder();
    let vs = e.embed(&texts).unwrap();
    let max_component = vs.iter().flatten().fold(0f32, |m, x| m.max(x.abs()));
    assert!(max_component < 0.5, "a component of {max_component} would be clamped");
    let mut worst = 0f32;
    for a in &vs {
        for b in &vs {
            let exact: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            worst = worst.max((exact - cosine_i8(&quantize(a), &quantize(b))).abs());
        }
    }
    eprintln!("largest int8 cosine error: {worst}");
    assert!(worst < 0.006, "int8 cosine off by {worst}");
}

#[test]
fn several_embedders_load_at_once_in_one_process() {
    let threads: Vec<_> = (0..4).map(|_| std::thread::spawn(embedder)).collect();
    let all: Vec<OnnxEmbedder> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let v: Vec<Vec<f32>> = all.iter().map(|e| e.embed(&["same text"]).unwrap().remove(0)).collect();
    assert!(v.windows(2).all(|w| w[0] == w[1]));
}
