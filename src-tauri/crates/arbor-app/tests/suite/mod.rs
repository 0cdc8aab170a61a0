mod host;
mod import;
mod live;
mod soak;
