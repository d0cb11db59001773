//! Deploy function.
