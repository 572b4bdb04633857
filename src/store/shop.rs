//! The furniture shop, the coin ledger and what each user owns.
//!
//! A balance (`users.coins`) moves only together with a ledger entry, in one transaction, and
//! only through a conditional update (`coins >= price`), so it cannot go negative however many
//! purchases race.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::schema::{coin_entries, inventory, purchases, shop_items, users};
use super::{new_id, ordered_id, Db, Store, StoreError, UserRow};
use crate::common::{ItemId, OperatorName, TableId, UserId};

/// A shop item as stored and as the API shows it.
#[derive(
    Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize, utoipa::ToSchema,
)]
#[diesel(table_name = shop_items)]
pub struct ShopItem {
    #[schema(value_type = String)]
    pub id: ItemId,
    pub name: String,
    #[schema(value_type = String)]
    pub kind: ItemKind,
    pub wood: Option<String>,
    pub finish: Option<String>,
    pub price: i64,
    /// How many are left; `null` is unlimited.
    pub stock: Option<i32>,
    pub on_sale: bool,
    #[serde(skip)]
    pub created_at: NaiveDateTime,
    #[serde(skip)]
    pub updated_at: NaiveDateTime,
}

impl ShopItem {
    pub fn is_board(&self) -> bool {
        self.kind == ItemKind::AyoBoard
    }
}

/// What an item is: an Ayo board becomes a table when placed at home.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    AyoBoard,
    Furniture,
}

impl ItemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::AyoBoard => "ayo_board",
            ItemKind::Furniture => "furniture",
        }
    }
}

/// A change to an item; `None` leaves a field as it is. `stock: Some(None)` makes it unlimited.
#[derive(Debug, Clone, Default)]
pub struct ItemChange {
    pub name: Option<String>,
    pub price: Option<i64>,
    pub stock: Option<Option<i32>>,
    pub on_sale: Option<bool>,
}

/// A purchase as stored: the price paid and the balance after it.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = purchases)]
pub struct PurchaseRow {
    pub id: String,
    pub user_id: UserId,
    pub item_id: ItemId,
    /// The item's name when sold.
    pub item_name: String,
    pub price: i64,
    pub balance: i64,
    pub idempotency_key: Option<String>,
    pub created_at: NaiveDateTime,
}

/// An item as it was sold: what cannot change afterwards, so a retry answers the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SoldItem {
    #[schema(value_type = String)]
    pub id: ItemId,
    pub name: String,
    #[schema(value_type = String)]
    pub kind: ItemKind,
    pub wood: Option<String>,
    pub finish: Option<String>,
    /// The price paid.
    pub price: i64,
}

/// What a purchase made: the purchase, the item as sold, and the thing now owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purchase {
    pub purchase: PurchaseRow,
    pub item: SoldItem,
    pub owned: Owned,
    /// True when this answers a retry of an earlier purchase (same `Idempotency-Key`).
    pub replayed: bool,
}

/// A thing a user owns.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory)]
pub struct Owned {
    pub id: String,
    pub user_id: UserId,
    pub item_id: ItemId,
    pub purchase_id: Option<String>,
    /// Where a board stands, when placed at home.
    pub table_id: Option<TableId>,
    pub acquired_at: NaiveDateTime,
}

/// One line of the coin ledger.
#[derive(
    Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize, utoipa::ToSchema,
)]
#[diesel(table_name = coin_entries)]
pub struct CoinEntry {
    pub id: String,
    #[serde(skip)]
    pub user_id: UserId,
    /// Coins in (positive) or out (negative).
    pub amount: i64,
    /// The balance after this entry.
    pub balance: i64,
    /// `welcome`, `purchase`, `grant` or `take`.
    pub reason: String,
    pub note: String,
    pub purchase_id: Option<String>,
    /// The operator, for `grant` and `take`.
    pub actor: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "super::utc")]
    pub created_at: NaiveDateTime,
}

/// Why a purchase or a coin change did not happen.
#[derive(Debug, Error)]
pub enum ShopError {
    #[error("there is no item `{0}` in the shop")]
    NoSuchItem(String),
    #[error("there is no user `{0}`")]
    NoSuchUser(String),
    #[error("`{0}` is not on sale")]
    NotOnSale(String),
    #[error("`{0}` is out of stock")]
    OutOfStock(String),
    #[error("that takes {needed} coins and the balance is {balance}")]
    InsufficientCoins { needed: i64, balance: i64 },
    #[error("this Idempotency-Key was already used for a purchase of `{0}`")]
    KeyReused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DieselError> for ShopError {
    fn from(e: DieselError) -> Self {
        ShopError::Store(e.into())
    }
}

/// Why coins move, as their ledger entry says: its reason and note, the purchase, and the
/// operator who moved them.
pub(super) struct Why<'a> {
    reason: &'a str,
    note: &'a str,
    purchase_id: Option<&'a str>,
    actor: Option<&'a OperatorName>,
}

impl Store {
    /// The shop's items, those on sale only unless `all`.
    pub fn shop_items(&self, all: bool) -> Result<Vec<ShopItem>, StoreError> {
        let mut query = shop_items::table
            .order((
                shop_items::kind.asc(),
                shop_items::price.asc(),
                shop_items::id.asc(),
            ))
            .select(ShopItem::as_select())
            .into_boxed();
        if !all {
            query = query.filter(shop_items::on_sale.eq(true));
        }
        Ok(query.load(&mut *self.conn()?)?)
    }

    pub fn shop_item(&self, id: &ItemId) -> Result<Option<ShopItem>, StoreError> {
        Ok(shop_items::table
            .find(id)
            .select(ShopItem::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// Stores an item unless one with its id exists; true when it was new.
    pub fn ensure_shop_item(&self, item: &ShopItem) -> Result<bool, StoreError> {
        match self.insert_shop_item(item) {
            Ok(()) => Ok(true),
            Err(StoreError::Conflict(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub fn insert_shop_item(&self, item: &ShopItem) -> Result<(), StoreError> {
        diesel::insert_into(shop_items::table)
            .values(item)
            .execute(&mut *self.conn()?)?;
        Ok(())
    }

    /// A new item, on an operator's word, audited in the same transaction.
    pub fn create_item(&self, actor: &OperatorName, item: &ShopItem) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::insert_into(shop_items::table)
                .values(item)
                .execute(conn)?;
            self.audit_in(
                conn,
                actor,
                "shop_item.create",
                item.id.as_str(),
                &serde_json::to_value(item).unwrap_or_default(),
            )
        })
    }

    /// Changes an item on an operator's word, audited; the item as it is now.
    pub fn change_item(
        &self,
        actor: &OperatorName,
        id: &ItemId,
        change: &ItemChange,
    ) -> Result<ShopItem, StoreError> {
        self.write(|conn| {
            let item = self.change_item_in(conn, id, change)?;
            let mut details = serde_json::Map::new();
            if let Some(name) = &change.name {
                details.insert("name".into(), name.clone().into());
            }
            if let Some(price) = change.price {
                details.insert("price".into(), price.into());
            }
            if let Some(stock) = change.stock {
                details.insert("stock".into(), stock.into());
            }
            if let Some(on_sale) = change.on_sale {
                details.insert("on_sale".into(), on_sale.into());
            }
            self.audit_in(
                conn,
                actor,
                "shop_item.change",
                id.as_str(),
                &details.into(),
            )?;
            Ok(item)
        })
    }

    fn change_item_in(
        &self,
        conn: &mut Db,
        id: &ItemId,
        change: &ItemChange,
    ) -> Result<ShopItem, StoreError> {
        let mut item: ShopItem = shop_items::table
            .find(id)
            .select(ShopItem::as_select())
            .first(conn)
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("shop item `{id}`")))?;
        if let Some(name) = &change.name {
            item.name = name.clone();
        }
        if let Some(price) = change.price {
            item.price = price;
        }
        if let Some(stock) = change.stock {
            item.stock = stock;
        }
        if let Some(on_sale) = change.on_sale {
            item.on_sale = on_sale;
        }
        item.updated_at = self.now();
        diesel::update(shop_items::table.find(id))
            .set((
                shop_items::name.eq(&item.name),
                shop_items::price.eq(item.price),
                shop_items::stock.eq(item.stock),
                shop_items::on_sale.eq(item.on_sale),
                shop_items::updated_at.eq(item.updated_at),
            ))
            .execute(conn)?;
        Ok(item)
    }

    /// A new user with the welcome grant in the ledger, in one transaction.
    pub fn sign_up(&self, user: &UserRow, grant: i64) -> Result<(), StoreError> {
        self.write(|conn| self.sign_up_in(conn, user, grant))
    }

    /// `sign_up` inside a transaction of the caller's (a hotel guest's first visit).
    pub(crate) fn sign_up_in(
        &self,
        conn: &mut Db,
        user: &UserRow,
        grant: i64,
    ) -> Result<(), StoreError> {
        Store::insert_user_in(conn, user)?;
        if grant > 0 {
            self.move_coins(
                conn,
                &user.id,
                grant,
                Why {
                    reason: "welcome",
                    note: "welcome to Lagos Hotel",
                    purchase_id: None,
                    actor: None,
                },
            )
            .map_err(|e| match e {
                ShopError::Store(e) => e,
                e => StoreError::Conflict(e.to_string()),
            })?;
        }
        Ok(())
    }

    /// A user's balance, or `None` for no such user.
    pub fn coins(&self, user_id: &UserId) -> Result<Option<i64>, StoreError> {
        Ok(users::table
            .find(user_id)
            .select(users::coins)
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// A user's ledger, newest first, at most `limit` entries.
    pub fn ledger(&self, user_id: &UserId, limit: i64) -> Result<Vec<CoinEntry>, StoreError> {
        Ok(coin_entries::table
            .filter(coin_entries::user_id.eq(user_id))
            .order(coin_entries::id.desc())
            .limit(limit)
            .select(CoinEntry::as_select())
            .load(&mut *self.conn()?)?)
    }

    /// Adds `amount` coins (taken when negative) to a user's balance with a ledger entry, in a
    /// transaction `conn` is in. Refused, changing nothing, when it would go below zero.
    pub(super) fn move_coins(
        &self,
        conn: &mut Db,
        user_id: &UserId,
        amount: i64,
        why: Why<'_>,
    ) -> Result<CoinEntry, ShopError> {
        let Why {
            reason,
            note,
            purchase_id,
            actor,
        } = why;
        let needed = amount.saturating_neg().max(0);
        let balance: Option<i64> =
            diesel::update(users::table.find(user_id).filter(users::coins.ge(needed)))
                .set(users::coins.eq(users::coins + amount))
                .returning(users::coins)
                .get_result(conn)
                .optional()?;
        let Some(balance) = balance else {
            let balance: Option<i64> = users::table
                .find(user_id)
                .select(users::coins)
                .first(conn)
                .optional()?;
            return Err(match balance {
                None => ShopError::NoSuchUser(user_id.to_string()),
                Some(balance) => ShopError::InsufficientCoins { needed, balance },
            });
        };
        let entry = CoinEntry {
            id: ordered_id(),
            user_id: user_id.clone(),
            amount,
            balance,
            reason: reason.to_owned(),
            note: note.to_owned(),
            purchase_id: purchase_id.map(str::to_owned),
            actor: actor.map(OperatorName::to_string),
            created_at: self.now(),
        };
        diesel::insert_into(coin_entries::table)
            .values(&entry)
            .execute(conn)?;
        Ok(entry)
    }

    /// Buys one of an item for a user. With an `idempotency_key` a retry answers the first
    /// purchase again (`replayed`) and changes nothing.
    pub fn purchase(
        &self,
        user_id: &UserId,
        item_id: &ItemId,
        idempotency_key: Option<&str>,
    ) -> Result<Purchase, ShopError> {
        if let Some(key) = idempotency_key {
            if let Some(done) = self.purchase_by_key(user_id, key)? {
                return done.matching(item_id);
            }
        }
        let bought = self.write(|conn| {
            let item: ShopItem = shop_items::table
                .find(item_id)
                .select(ShopItem::as_select())
                .first(conn)
                .optional()?
                .ok_or_else(|| ShopError::NoSuchItem(item_id.to_string()))?;
            if !item.on_sale {
                return Err(ShopError::NotOnSale(item.name));
            }
            if item.stock == Some(0) {
                return Err(ShopError::OutOfStock(item.name));
            }
            let purchase_id = new_id();
            let entry = self.move_coins(
                conn,
                user_id,
                -item.price,
                Why {
                    reason: "purchase",
                    note: &item.name,
                    purchase_id: Some(&purchase_id),
                    actor: None,
                },
            )?;
            if item.stock.is_some() {
                let taken = diesel::update(
                    shop_items::table
                        .find(item_id)
                        .filter(shop_items::stock.gt(0)),
                )
                .set(shop_items::stock.eq(shop_items::stock - 1))
                .execute(conn)?;
                if taken == 0 {
                    return Err(ShopError::OutOfStock(item.name));
                }
            }
            let purchase = PurchaseRow {
                id: purchase_id,
                user_id: user_id.clone(),
                item_id: item_id.clone(),
                item_name: item.name.clone(),
                price: item.price,
                balance: entry.balance,
                idempotency_key: idempotency_key.map(str::to_owned),
                created_at: entry.created_at,
            };
            diesel::insert_into(purchases::table)
                .values(&purchase)
                .execute(conn)?;
            let owned = Owned {
                id: new_id(),
                user_id: user_id.clone(),
                item_id: item_id.clone(),
                purchase_id: Some(purchase.id.clone()),
                table_id: None,
                acquired_at: purchase.created_at,
            };
            diesel::insert_into(inventory::table)
                .values(&owned)
                .execute(conn)?;
            Ok(Purchase::sold(purchase, &item, owned, false))
        });
        match (bought, idempotency_key) {
            (Ok(bought), _) => Ok(bought),
            // The same key raced in from another request and won (a unique-key conflict, or
            // a balance or stock it had just taken): answer as it did.
            (Err(refused), Some(key)) => match self.purchase_by_key(user_id, key)? {
                Some(done) => done.matching(item_id),
                None => Err(refused),
            },
            (Err(refused), None) => Err(refused),
        }
    }

    /// The purchase a user made with `key`, if any, as it was answered.
    fn purchase_by_key(&self, user_id: &UserId, key: &str) -> Result<Option<Purchase>, StoreError> {
        let mut conn = self.conn()?;
        let Some(purchase) = purchases::table
            .filter(purchases::user_id.eq(user_id))
            .filter(purchases::idempotency_key.eq(key))
            .select(PurchaseRow::as_select())
            .first(&mut *conn)
            .optional()?
        else {
            return Ok(None);
        };
        let item: ShopItem = shop_items::table
            .find(&purchase.item_id)
            .select(ShopItem::as_select())
            .first(&mut *conn)?;
        let owned = inventory::table
            .filter(inventory::purchase_id.eq(&purchase.id))
            .select(Owned::as_select())
            .first(&mut *conn)?;
        Ok(Some(Purchase::sold(purchase, &item, owned, true)))
    }

    /// Everything a user owns, oldest first, with the items.
    pub fn inventory(&self, user_id: &UserId) -> Result<Vec<(Owned, ShopItem)>, StoreError> {
        Ok(inventory::table
            .inner_join(shop_items::table)
            .filter(inventory::user_id.eq(user_id))
            .order((inventory::acquired_at.asc(), inventory::id.asc()))
            .select((Owned::as_select(), ShopItem::as_select()))
            .load(&mut *self.conn()?)?)
    }

    /// Grants (positive) or takes (negative) coins on an operator's word, audited in the same
    /// transaction.
    pub fn adjust_coins(
        &self,
        actor: &OperatorName,
        user_id: &UserId,
        amount: i64,
        note: &str,
    ) -> Result<CoinEntry, ShopError> {
        self.write(|conn| {
            let reason = if amount >= 0 { "grant" } else { "take" };
            let why = Why {
                reason,
                note,
                purchase_id: None,
                actor: Some(actor),
            };
            let entry = self.move_coins(conn, user_id, amount, why)?;
            self.audit_in(
                conn,
                actor,
                if amount >= 0 {
                    "coins.grant"
                } else {
                    "coins.take"
                },
                user_id.as_str(),
                &serde_json::json!({"amount": amount, "reason": note, "balance": entry.balance}),
            )?;
            Ok(entry)
        })
    }
}

impl Purchase {
    fn sold(purchase: PurchaseRow, item: &ShopItem, owned: Owned, replayed: bool) -> Purchase {
        Purchase {
            item: SoldItem {
                id: item.id.clone(),
                name: purchase.item_name.clone(),
                kind: item.kind,
                wood: item.wood.clone(),
                finish: item.finish.clone(),
                price: purchase.price,
            },
            purchase,
            owned,
            replayed,
        }
    }

    /// A stored purchase answering a retry: refused if the key was used for another item.
    fn matching(self, item_id: &ItemId) -> Result<Purchase, ShopError> {
        if self.purchase.item_id == *item_id {
            Ok(self)
        } else {
            Err(ShopError::KeyReused(self.item.name))
        }
    }
}
