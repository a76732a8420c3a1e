// Package web is lore's web view: pages to browse and review a store's
// knowledge, the sessions it came from and the measure dashboard.
package web
