//! The store's behaviour against real SQLite files in temporary directories:
//! one integration-test binary for the crate (design.md §6.8).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
