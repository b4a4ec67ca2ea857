//! TODO me
