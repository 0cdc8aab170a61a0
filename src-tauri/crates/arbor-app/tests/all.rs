//! arbor-app's integration tests: the one API, driven as the desktop and the CLI drive it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
