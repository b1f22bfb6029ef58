package main

import (
	"fmt"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newTokenCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke API tokens for gpucost serve",
		Long: `Tokens authenticate agents, people and tools to gpucost serve. Roles: viewer reads,
ingest only pushes samples and bills (for agents), admin may do everything. The secret is
printed once, when the token is created; the store keeps only its SHA-256 hash.`,
		Example: `  gpucost token create --name gpu-node-17 --role ingest
  gpucost token list
  gpucost token revoke 3`,
	}
	cmd.AddCommand(newTokenCreateCmd(e), newTokenListCmd(e), newTokenRevokeCmd(e))
	return cmd
}

func newTokenCreateCmd(e *env) *cobra.Command {
	var name, role string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a token and print its secret once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := gpucost.ParseRole(role)
			if err != nil {
				return usageError{fmt.Errorf("--role: %w", err)}
			}
			if name == "" {
				return usageError{fmt.Errorf("--name is required: say whom or what the token is for")}
			}
			return e.withStore(cmd.Context(), func(db storeDB) error {
				secret, err := gpucost.NewTokenSecret()
				if err != nil {
					return err
				}
				tok, err := db.CreateToken(cmd.Context(), gpucost.Token{Name: name, Role: r, Created: e.now()}, gpucost.HashTokenSecret(secret))
				if err != nil {
					return err
				}
				// The secret is shown before the audit entry is written: it exists only now, and a
				// token whose secret was never seen is of no use.
				if e.output == "json" {
					if err := writeJSONValue(e, map[string]any{"id": tok.ID, "name": tok.Name, "role": tok.Role, "created": tok.Created, "secret": secret}); err != nil {
						return err
					}
				} else {
					fmt.Fprintln(e.stdout, secret)
					fmt.Fprintf(e.stderr, "token %d (%s, %s) created. The secret above is shown only now: store it, e.g. as $GPUCOST_TOKEN.\n", tok.ID, tok.Name, tok.Role)
				}
				return e.audit(cmd.Context(), db, gpucost.AuditTokenCreate, tokenTarget(tok), "role "+string(tok.Role))
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "whom or what the token is for, such as a host or a team")
	cmd.Flags().StringVar(&role, "role", "", "viewer, ingest or admin")
	return cmd
}

func newTokenListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.printStored(cmd.Context(), func(db storeDB) (result, error) {
				toks, err := db.Tokens(cmd.Context())
				return present.Tokens(toks), err
			})
		},
	}
}

func newTokenRevokeCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token: it stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return usageError{fmt.Errorf("token id %q: use the number gpucost token list shows", args[0])}
			}
			return e.withStore(cmd.Context(), func(db storeDB) error {
				if err := db.RevokeToken(cmd.Context(), id, e.now()); err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "token %d revoked\n", id)
				target, detail := fmt.Sprintf("token %d", id), ""
				if toks, err := db.Tokens(cmd.Context()); err == nil {
					for _, t := range toks {
						if t.ID == id {
							target, detail = tokenTarget(t), "role "+string(t.Role)
						}
					}
				}
				return e.audit(cmd.Context(), db, gpucost.AuditTokenRevoke, target, detail)
			})
		},
	}
}

// tokenTarget names a token as the audit log's target: "token 4 (agents)".
func tokenTarget(t gpucost.Token) string { return fmt.Sprintf("token %d (%s)", t.ID, t.Name) }

// writeJSONValue prints v as indented JSON on stdout.
func writeJSONValue(e *env, v any) error {
	return writeJSON(e.stdout, result{JSON: v})
}
