package serve

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/lorehq/lore"
)

// The codes of the API's errors, in every error's "code".
const (
	codeInvalid      = lore.EINVALID  // 400
	codeUnauthorized = "unauthorized" // 401
	codeForbidden    = "forbidden"    // 403
	codeNotFound     = lore.ENOTFOUND // 404
	codeMethod       = "method_not_allowed"
	codeConflict     = lore.ECONFLICT // 409
	codeTooLarge     = "too_large"    // 413
	codeInternal     = "internal"     // 500
)

// errorBody is every error's answer.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// apiError is an error with the status and code it is answered with.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func invalidf(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, codeInvalid, fmt.Sprintf(format, args...)}
}

var errBadToken = &apiError{http.StatusUnauthorized, codeUnauthorized, "unknown bearer token"}

// writeError answers err with its status: a store's lore.Error by its
// code, a body over its limit with 413, anything else with 500 and a
// message that gives nothing of the server away (the log has it).
func writeError(w http.ResponseWriter, log *slog.Logger, err error) {
	var ae *apiError
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		if ae.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lore"`)
		}
		writeJSON(w, ae.status, errorBody{ae.msg, ae.code})
	case errors.As(err, &mb):
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{fmt.Sprintf("the body is over the limit of %d bytes", mb.Limit), codeTooLarge})
	case lore.ErrorCode(err) == lore.EINVALID:
		writeJSON(w, http.StatusBadRequest, errorBody{oneLine(err.Error()), codeInvalid})
	case lore.ErrorCode(err) == lore.ENOTFOUND:
		writeJSON(w, http.StatusNotFound, errorBody{oneLine(err.Error()), codeNotFound})
	case lore.ErrorCode(err) == lore.ECONFLICT:
		writeJSON(w, http.StatusConflict, errorBody{oneLine(err.Error()), codeConflict})
	default:
		log.Error("request failed", "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{"internal error; the server's log says more", codeInternal})
	}
}
