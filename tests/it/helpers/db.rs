//! A fresh database for each test, SQLite or PostgreSQL.

/// A fresh database for one test: a SQLite file in the temp folder, or a PostgreSQL database
/// of its own on the local server, dropped when the test ends.
pub struct TestDb {
    pub url: lounge::store::DatabaseUrl,
    store: Option<lounge::store::Store>,
    pg_name: Option<String>,
}

/// The PostgreSQL server the tests use (`LOUNGE_TEST_POSTGRES`, default the local one).
fn pg_server() -> String {
    std::env::var("LOUNGE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".to_owned())
}

fn pg_admin() -> diesel::PgConnection {
    use diesel::Connection;
    diesel::PgConnection::establish(&format!("{}/postgres", pg_server()))
        .expect("PostgreSQL on 127.0.0.1:5432 (.ci/run starts it)")
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let path = std::env::temp_dir().join(format!("lounge-test-{}.db", lounge::store::new_id()));
        let url = lounge::store::DatabaseUrl::Sqlite(path);
        let store = lounge::store::Store::open(&url, 4).expect("open SQLite");
        TestDb {
            url,
            store: Some(store),
            pg_name: None,
        }
    }

    pub fn postgres() -> TestDb {
        use diesel::connection::SimpleConnection;
        let name = format!("lounge_test_{}", lounge::store::new_id());
        pg_admin()
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        let url = lounge::store::DatabaseUrl::Postgres(format!("{}/{name}", pg_server()));
        let store = lounge::store::Store::open(&url, 4).expect("open PostgreSQL");
        TestDb {
            url,
            store: Some(store),
            pg_name: Some(name),
        }
    }

    /// A PostgreSQL database of its own with nothing in it yet: no store opened it.
    pub fn postgres_empty() -> TestDb {
        use diesel::connection::SimpleConnection;
        let name = format!("lounge_test_{}", lounge::store::new_id());
        pg_admin()
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        TestDb {
            url: lounge::store::DatabaseUrl::Postgres(format!("{}/{name}", pg_server())),
            store: None,
            pg_name: Some(name),
        }
    }

    /// Another handle on the same database, as a second instance has: dropping it leaves
    /// the database to the first.
    pub fn again(&self) -> TestDb {
        TestDb {
            url: self.url.clone(),
            store: Some(lounge::store::Store::open(&self.url, 4).expect("open again")),
            pg_name: None,
        }
    }

    /// One of each, for tests that run on both backends.
    pub fn both() -> [TestDb; 2] {
        [TestDb::sqlite(), TestDb::postgres()]
    }

    /// The URL as `DATABASE_URL` would give it.
    pub fn url_string(&self) -> String {
        match &self.url {
            lounge::store::DatabaseUrl::Postgres(u) => u.clone(),
            lounge::store::DatabaseUrl::Sqlite(p) => p.to_string_lossy().into_owned(),
        }
    }

    pub fn store(&self) -> &lounge::store::Store {
        self.store.as_ref().expect("open until dropped")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        use diesel::connection::SimpleConnection;
        drop(self.store.take());
        match (&self.pg_name, &self.url) {
            (Some(name), _) => {
                let _ = pg_admin()
                    .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
            (None, lounge::store::DatabaseUrl::Sqlite(path)) => {
                for suffix in ["", "-wal", "-shm"] {
                    let mut p = path.clone().into_os_string();
                    p.push(suffix);
                    let _ = std::fs::remove_file(p);
                }
            }
            _ => {}
        }
    }
}
