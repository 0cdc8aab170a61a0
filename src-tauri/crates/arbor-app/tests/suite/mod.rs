mod host;
