//! The authorization rules of the whole API, written once as a table. The HTTP adapter asks
//! [`required_access`] for every `/api/...` request; README.md shows the same table.

use super::models::Role;

/// What a request does, as far as authorization is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// GET and HEAD: reads.
    Read,
    /// Everything else: runs, creates, changes.
    Write,
}

/// Who may make a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No token needed (sign-in routes, probes, the OpenAPI document).
    Public,
    /// A valid access token with at least this role.
    AtLeast(Role),
}

/// Which operations a rule covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operations {
    Any,
    Only(Operation),
}

/// One row of the access table: the first row whose path matches (exactly, or as a prefix when it
/// ends with `/`) and whose operations include the request's decides.
#[derive(Clone, Copy, Debug)]
pub struct AccessRule {
    pub path: &'static str,
    pub operations: Operations,
    pub access: Access,
}

const fn rule(path: &'static str, operations: Operations, access: Access) -> AccessRule {
    AccessRule { path, operations, access }
}

/// The table. Order matters: specific rows first.
pub const ACCESS_RULES: &[AccessRule] = &[
    rule("/api/auth/login", Operations::Any, Access::Public),
    rule("/api/auth/refresh", Operations::Any, Access::Public),
    rule("/api/auth/wallet", Operations::Any, Access::Public),
    rule("/api/auth/wallet/nonce", Operations::Any, Access::Public),
    // Signing out is not "running a workflow": every signed-in user may do it.
    rule("/api/auth/logout", Operations::Any, Access::AtLeast(Role::Viewer)),
    rule("/api/admin/", Operations::Any, Access::AtLeast(Role::Admin)),
    rule("/api/", Operations::Only(Operation::Read), Access::AtLeast(Role::Viewer)),
    rule("/api/", Operations::Any, Access::AtLeast(Role::Analyst)),
];

/// The access a request needs. Paths outside `/api/` (health probes, `/openapi.json`) are public.
pub fn required_access(operation: Operation, path: &str) -> Access {
    ACCESS_RULES
        .iter()
        .find(|rule| {
            let path_matches = if rule.path.ends_with('/') { path.starts_with(rule.path) } else { path == rule.path };
            let operation_matches = match rule.operations {
                Operations::Any => true,
                Operations::Only(only) => only == operation,
            };
            path_matches && operation_matches
        })
        .map(|rule| rule.access)
        .unwrap_or(Access::Public)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_in_routes_are_public() {
        for path in ["/api/auth/login", "/api/auth/refresh", "/api/auth/wallet", "/api/auth/wallet/nonce"] {
            assert_eq!(required_access(Operation::Write, path), Access::Public, "{path}");
        }
    }

    #[test]
    fn viewers_read_analysts_write_admins_administer() {
        assert_eq!(
            required_access(Operation::Read, "/api/quantitative-analysis/results/x"),
            Access::AtLeast(Role::Viewer)
        );
        assert_eq!(
            required_access(Operation::Write, "/api/quantitative-analysis/company"),
            Access::AtLeast(Role::Analyst)
        );
        assert_eq!(required_access(Operation::Read, "/api/admin/users"), Access::AtLeast(Role::Admin));
        assert_eq!(required_access(Operation::Write, "/api/admin/users"), Access::AtLeast(Role::Admin));
        assert_eq!(required_access(Operation::Write, "/api/auth/logout"), Access::AtLeast(Role::Viewer));
        assert_eq!(required_access(Operation::Read, "/api/auth/me"), Access::AtLeast(Role::Viewer));
    }

    #[test]
    fn a_public_prefix_does_not_leak_to_longer_paths() {
        assert_eq!(required_access(Operation::Write, "/api/auth/login-as-admin"), Access::AtLeast(Role::Analyst));
    }

    #[test]
    fn probes_and_documentation_are_public() {
        assert_eq!(required_access(Operation::Read, "/health/live"), Access::Public);
        assert_eq!(required_access(Operation::Read, "/openapi.json"), Access::Public);
    }
}
