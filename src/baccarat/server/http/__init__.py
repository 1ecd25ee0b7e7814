"""HTTP: the API, sessions and logins, security headers, the client's files and the test hooks."""
