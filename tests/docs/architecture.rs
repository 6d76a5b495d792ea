//! The layers of `src/`.
