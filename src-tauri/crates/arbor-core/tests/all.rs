//! Scenario tests of the runtime against the scripted model server: one
//! integration-test binary for the crate (design.md §6.8).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
