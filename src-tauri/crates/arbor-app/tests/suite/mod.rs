mod host;
mod soak;
