package domain

// TokenRef is a bearer token as the request carries it: the user it names and the hash under which it
// is stored. Getting it costs no read, so its session can be read with the first data a request needs.
type TokenRef struct {
	UserID string
	Hash   string
}

// Session is what the store holds for a TokenRef: the token and its user. Found is false when either
// is missing or they do not belong together; deciding what that means (401) is authentication's job.
type Session struct {
	User  User
	Token Token
	Found bool
}
