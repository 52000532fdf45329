-- Data only: replacements made before "inheritedNotionalQ9" existed inherit their
-- predecessors' notional, so their avgPx covers the whole lineage.
UPDATE "Order" AS o
SET "inheritedNotionalQ9" = p.notional
FROM (
  SELECT c.id, sum(a."cumNotionalQ9") AS notional
  FROM "Order" c
  JOIN "Order" a ON a."accountId" = c."accountId" AND a."lineageId" = c."lineageId" AND a.generation < c.generation
  WHERE c.generation > 1
  GROUP BY c.id
) AS p
WHERE o.id = p.id AND o."inheritedNotionalQ9" = 0;
