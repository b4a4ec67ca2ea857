//! Unit tests of the pins module, one file per source file, plus property tests.

mod canonical;
mod check;
mod compare;
mod diff;
mod drift;
mod props;
