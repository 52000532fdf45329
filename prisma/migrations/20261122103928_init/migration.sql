-- CreateEnum
CREATE TYPE "AccountKind" AS ENUM ('ROOT', 'SUBACCOUNT', 'SYSTEM');

-- CreateEnum
CREATE TYPE "AccountStatus" AS ENUM ('ACTIVE', 'SUSPENDED', 'CLOSED');

-- CreateEnum
CREATE TYPE "SystemAccountRole" AS ENUM ('CUSTODY', 'FEES', 'REFERRALS', 'OPERATOR');

-- CreateEnum
CREATE TYPE "ApiKeyStatus" AS ENUM ('ACTIVE', 'REVOKED');

-- CreateEnum
CREATE TYPE "ApiPermission" AS ENUM ('READ', 'TRADE', 'TRANSFER', 'WITHDRAW');

-- CreateEnum
CREATE TYPE "RateLimitPool" AS ENUM ('AUTH_PUBLIC', 'ACCOUNT_ADMIN', 'ACCOUNT_SECURITY', 'SOCIAL_PROVIDER', 'DEPOSIT_CREATE', 'INTERNAL_TRANSFER', 'WITHDRAW_SUBMIT', 'WITHDRAW_VALIDATE', 'GUARD_SIGN', 'TRADING_PLACE', 'TRADING_CANCEL');

-- CreateEnum
CREATE TYPE "AddressBookScopeType" AS ENUM ('ROOT', 'SUBACCOUNT');

-- CreateEnum
CREATE TYPE "AddressBookEntryKind" AS ENUM ('EXTERNAL_CHAIN', 'INTERNAL_ACCOUNT');

-- CreateEnum
CREATE TYPE "ChainFamily" AS ENUM ('EVM', 'SOLANA', 'BITCOIN', 'OTHER');

-- CreateEnum
CREATE TYPE "MarketStatus" AS ENUM ('TRADING', 'HALTED', 'CANCEL_ONLY', 'DELISTED');

-- CreateEnum
CREATE TYPE "LedgerAccount" AS ENUM ('FUNDING', 'TRADING');

-- CreateEnum
CREATE TYPE "TransferCode" AS ENUM ('DEPOSIT', 'WITHDRAW', 'WITHDRAW_FEE', 'WITHDRAW_REVERSAL', 'INTERNAL_TRANSFER', 'TRADE', 'FEE', 'REBATE', 'REFERRAL', 'ADJUSTMENT');

-- CreateEnum
CREATE TYPE "TransferSideKind" AS ENUM ('FUNDING_ACCOUNT', 'TRADING_ACCOUNT', 'EXTERNAL_ADDRESS', 'EXCHANGE', 'SYSTEM');

-- CreateEnum
CREATE TYPE "Side" AS ENUM ('BUY', 'SELL');

-- CreateEnum
CREATE TYPE "OrderType" AS ENUM ('LIMIT', 'MARKET');

-- CreateEnum
CREATE TYPE "TimeInForce" AS ENUM ('GTC', 'GTD', 'IOC');

-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('PENDING', 'NEW', 'PARTIALLY_FILLED', 'PAUSED', 'FILLED', 'CANCELED', 'EXPIRED', 'REJECTED', 'REPLACED');

-- CreateEnum
CREATE TYPE "FeeAsset" AS ENUM ('QUOTE', 'BASE');

-- CreateEnum
CREATE TYPE "StpMode" AS ENUM ('EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT');

-- CreateEnum
CREATE TYPE "OrderOriginScope" AS ENUM ('DIRECT', 'ATTACHED_RISK', 'TRIGGER');

-- CreateEnum
CREATE TYPE "OrderCloseReason" AS ENUM ('USER_CANCELED', 'CANCEL_ALL', 'DEAD_MAN_SWITCH', 'GTD_EXPIRED', 'IOC_REMAINDER', 'POST_ONLY_WOULD_TAKE', 'SELF_TRADE_PREVENTION', 'SLIPPAGE_LIMIT', 'QUOTE_DEBIT_LIMIT', 'INSUFFICIENT_BALANCE', 'NO_LIQUIDITY', 'OCO_SIBLING', 'PARENT_CANCELED', 'MARKET_HALTED', 'REPLACED', 'INVALID');

-- CreateEnum
CREATE TYPE "AttachedRiskLegKind" AS ENUM ('STOP_LOSS', 'TAKE_PROFIT', 'TRAILING_STOP');

-- CreateEnum
CREATE TYPE "AttachedRiskLegStatus" AS ENUM ('NOT_CONFIGURED', 'PENDING', 'ARMED', 'TRIGGERED', 'COMPLETED', 'CANCELED', 'FAILED');

-- CreateEnum
CREATE TYPE "ChildOrderKind" AS ENUM ('MARKET_IOC', 'LIMIT');

-- CreateEnum
CREATE TYPE "TriggerType" AS ENUM ('STOP_LOSS', 'TAKE_PROFIT', 'TRAILING_STOP', 'TWAP', 'LADDER');

-- CreateEnum
CREATE TYPE "TriggerStatus" AS ENUM ('CREATED', 'ARMED', 'TRIGGERED', 'RUNNING', 'COMPLETED', 'CANCELED', 'FAILED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "TriggerCancelReason" AS ENUM ('USER_REQUEST', 'PARENT_CANCELED', 'PARENT_REJECTED', 'PARENT_EXPIRED', 'OCO_SIBLING_FIRED', 'CANCEL_ALL', 'DEAD_MAN_SWITCH', 'MARKET_DELISTED', 'SYSTEM');

-- CreateEnum
CREATE TYPE "TriggerFailureReason" AS ENUM ('INSUFFICIENT_BALANCE', 'CHILD_REJECTED', 'SLIPPAGE_EXCEEDED', 'NO_LIQUIDITY', 'MIN_NOTIONAL', 'MARKET_HALTED', 'INTERNAL_ERROR');

-- CreateEnum
CREATE TYPE "TriggerDirection" AS ENUM ('ABOVE', 'BELOW');

-- CreateEnum
CREATE TYPE "TriggerPriceSource" AS ENUM ('LAST_PRICE', 'MID_PRICE', 'MARK_PRICE');

-- CreateEnum
CREATE TYPE "TriggerEventType" AS ENUM ('CREATED', 'ARMED', 'THRESHOLD_UPDATED', 'FIRED', 'CHILD_PLACED', 'CHILD_FILLED', 'CHILD_CANCELED', 'CHILD_REJECTED', 'SLICE_SKIPPED', 'COMPLETED', 'CANCELED', 'FAILED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "DeadManSwitchStatus" AS ENUM ('ARMED', 'DISABLED');

-- CreateEnum
CREATE TYPE "SideScope" AS ENUM ('ANY', 'BUY', 'SELL');

-- CreateEnum
CREATE TYPE "FlowKind" AS ENUM ('DEPOSIT', 'WITHDRAW_TO_EXTERNAL_CHAIN', 'WITHDRAW_TO_FUNDING');

-- CreateEnum
CREATE TYPE "FlowState" AS ENUM ('PENDING_SOURCE', 'SOURCE_CONFIRMING', 'PENDING_VALIDATION', 'PENDING_DESTINATION', 'DESTINATION_CONFIRMING', 'COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED', 'DROPPED');

-- CreateEnum
CREATE TYPE "FlowStep" AS ENUM ('SOURCE', 'CONFIRMATIONS', 'VALIDATION', 'SETTLEMENT', 'DESTINATION', 'COMPLETE');

-- CreateEnum
CREATE TYPE "FlowDomain" AS ENUM ('EXTERNAL_CHAIN', 'FUNDING', 'TRADING');

-- CreateEnum
CREATE TYPE "LifecycleSource" AS ENUM ('RELAYER', 'INDEXER', 'VALIDATOR', 'ZIPPER', 'USER', 'OPERATOR', 'SYSTEM');

-- CreateEnum
CREATE TYPE "LifecycleReason" AS ENUM ('ZIPPER_VALIDATION_REJECTED', 'DEPOSIT_WAIT_EXPIRED', 'AMOUNT_BELOW_MINIMUM', 'UNSUPPORTED_ASSET', 'DESTINATION_INVALID', 'DEADLINE_EXPIRED', 'CHAIN_REORG', 'INSUFFICIENT_BALANCE', 'INTERNAL_ERROR');

-- CreateEnum
CREATE TYPE "WithdrawAction" AS ENUM ('TO_FUNDING', 'TO_EXTERNAL_CHAIN');

-- CreateEnum
CREATE TYPE "WithdrawAuthorization" AS ENUM ('API_KEY', 'WALLET');

-- CreateEnum
CREATE TYPE "WithdrawIntentStatus" AS ENUM ('ACCEPTED', 'PROCESSING', 'SUBMITTED', 'COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "WidgetType" AS ENUM ('CHART', 'ORDERBOOK', 'TRADES', 'POSITIONS', 'ORDERS');

-- CreateEnum
CREATE TYPE "WhiteboardAudience" AS ENUM ('PRIVATE', 'ROOT_ACCOUNT', 'AUTHENTICATED', 'PUBLIC');

-- CreateEnum
CREATE TYPE "WhiteboardRole" AS ENUM ('VIEWER', 'EDITOR', 'MANAGER', 'OWNER');

-- CreateTable
CREATE TABLE "Account" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "kind" "AccountKind" NOT NULL,
    "status" "AccountStatus" NOT NULL DEFAULT 'ACTIVE',
    "rootAccountId" BIGINT,
    "walletAddress" TEXT,
    "smartAccountAddress" TEXT,
    "username" TEXT,
    "label" TEXT,
    "systemRole" "SystemAccountRole",
    "referredByAccountId" BIGINT,
    "vipTier" INTEGER NOT NULL DEFAULT 0,
    "acceptedTermsVersion" TEXT,
    "acceptedTermsAt" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TermsAcceptance" (
    "id" BIGSERIAL NOT NULL,
    "accountId" BIGINT NOT NULL,
    "version" TEXT NOT NULL,
    "acceptedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT,

    CONSTRAINT "TermsAcceptance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WalletNonce" (
    "id" BIGSERIAL NOT NULL,
    "nonce" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(6) NOT NULL,
    "usedAt" TIMESTAMPTZ(6),

    CONSTRAINT "WalletNonce_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" BIGSERIAL NOT NULL,
    "tokenHash" BYTEA NOT NULL,
    "accountId" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(6) NOT NULL,
    "revokedAt" TIMESTAMPTZ(6),
    "lastSeenAt" TIMESTAMPTZ(6),
    "clientIp" TEXT,
    "userAgent" TEXT,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiPolicy" (
    "id" BIGSERIAL NOT NULL,
    "policyId" TEXT NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "name" TEXT NOT NULL,
    "permissions" "ApiPermission"[],
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revision" BIGINT NOT NULL DEFAULT 1,

    CONSTRAINT "ApiPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" BIGSERIAL NOT NULL,
    "keyId" TEXT NOT NULL,
    "rootAccountId" BIGINT NOT NULL,
    "subaccountId" BIGINT,
    "policyId" BIGINT,
    "label" TEXT NOT NULL,
    "icon" TEXT,
    "color" TEXT,
    "ipWhitelist" TEXT[],
    "status" "ApiKeyStatus" NOT NULL DEFAULT 'ACTIVE',
    "publicKeyEd25519" BYTEA NOT NULL,
    "expiresAt" TIMESTAMPTZ(6),
    "createdByActor" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revision" BIGINT NOT NULL DEFAULT 1,
    "revokedAt" TIMESTAMPTZ(6),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateLimitOverride" (
    "id" BIGSERIAL NOT NULL,
    "pool" "RateLimitPool" NOT NULL,
    "accountId" BIGINT,
    "apiKeyId" BIGINT,
    "quotaWeight" BIGINT NOT NULL,
    "periodMs" BIGINT NOT NULL,
    "burstWeight" BIGINT NOT NULL,
    "reason" TEXT,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(6),

    CONSTRAINT "RateLimitOverride_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdempotencyRecord" (
    "id" BIGSERIAL NOT NULL,
    "accountId" BIGINT NOT NULL,
    "operation" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "requestHash" BYTEA NOT NULL,
    "response" JSONB,
    "httpStatus" INTEGER,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMPTZ(6),
    "expiresAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AddressBookEntry" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "rootAccountId" BIGINT NOT NULL,
    "scopeAccountId" BIGINT NOT NULL,
    "scopeType" "AddressBookScopeType" NOT NULL,
    "kind" "AddressBookEntryKind" NOT NULL,
    "label" TEXT NOT NULL,
    "note" TEXT,
    "externalAddress" TEXT,
    "externalRegistryChainId" INTEGER,
    "internalAccountId" BIGINT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revision" BIGINT NOT NULL DEFAULT 1,

    CONSTRAINT "AddressBookEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AddressBookTag" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "rootAccountId" BIGINT NOT NULL,
    "scopeAccountId" BIGINT NOT NULL,
    "scopeType" "AddressBookScopeType" NOT NULL,
    "name" TEXT NOT NULL,
    "color" TEXT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AddressBookTag_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AddressBookEntryTag" (
    "entryId" BIGINT NOT NULL,
    "tagId" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AddressBookEntryTag_pkey" PRIMARY KEY ("entryId","tagId")
);

-- CreateTable
CREATE TABLE "Chain" (
    "id" BIGSERIAL NOT NULL,
    "chainId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "family" "ChainFamily" NOT NULL,
    "nativeChainId" TEXT,
    "requiredConfirmations" INTEGER NOT NULL DEFAULT 1,
    "depositEnabled" BOOLEAN NOT NULL DEFAULT true,
    "withdrawEnabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Chain_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Asset" (
    "id" BIGSERIAL NOT NULL,
    "unifiedAssetId" INTEGER NOT NULL,
    "symbol" TEXT NOT NULL,
    "name" TEXT,
    "decimals" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Asset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChainAsset" (
    "id" BIGSERIAL NOT NULL,
    "zippedAssetId" INTEGER NOT NULL,
    "unifiedAssetId" INTEGER NOT NULL,
    "chainId" INTEGER NOT NULL,
    "tokenAddress" TEXT,
    "nativeDecimals" INTEGER NOT NULL,
    "minDepositE18" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "minWithdrawE18" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "withdrawFeeE18" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "depositEnabled" BOOLEAN NOT NULL DEFAULT true,
    "withdrawEnabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChainAsset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Market" (
    "id" BIGSERIAL NOT NULL,
    "symbolId" INTEGER NOT NULL,
    "symbol" TEXT NOT NULL,
    "baseAssetId" INTEGER NOT NULL,
    "quoteAssetId" INTEGER NOT NULL,
    "baseQuantityScale" INTEGER NOT NULL,
    "quoteQuantityScale" INTEGER NOT NULL,
    "tickSize" BIGINT NOT NULL,
    "qtyStep" BIGINT NOT NULL DEFAULT 1,
    "minQty" BIGINT NOT NULL,
    "maxQty" BIGINT,
    "minNotional" BIGINT NOT NULL,
    "status" "MarketStatus" NOT NULL DEFAULT 'TRADING',
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Market_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MarketFeeTier" (
    "id" BIGSERIAL NOT NULL,
    "symbolId" INTEGER NOT NULL,
    "vipTier" INTEGER NOT NULL,
    "makerFeeRatePpm" INTEGER NOT NULL,
    "takerFeeRatePpm" INTEGER NOT NULL,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MarketFeeTier_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MarketSequence" (
    "id" BIGSERIAL NOT NULL,
    "symbolId" INTEGER NOT NULL,
    "lastMatchId" BIGINT NOT NULL DEFAULT 0,
    "lastBookSeq" BIGINT NOT NULL DEFAULT 0,
    "lastPrioritySeq" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MarketSequence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Balance" (
    "id" BIGSERIAL NOT NULL,
    "accountId" BIGINT NOT NULL,
    "ledgerAccount" "LedgerAccount" NOT NULL,
    "assetId" INTEGER NOT NULL,
    "available" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "held" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "version" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Balance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LedgerTransfer" (
    "id" BIGSERIAL NOT NULL,
    "transferCode" "TransferCode" NOT NULL,
    "flowId" BIGINT,
    "symbolId" INTEGER,
    "matchId" BIGINT,
    "txId" TEXT,
    "timestampUs" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "memo" TEXT,

    CONSTRAINT "LedgerTransfer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LedgerTransferLeg" (
    "id" BIGSERIAL NOT NULL,
    "transferId" BIGINT NOT NULL,
    "accountId" BIGINT NOT NULL,
    "ledgerAccount" "LedgerAccount" NOT NULL,
    "assetId" INTEGER NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "isDebit" BOOLEAN NOT NULL,
    "balanceAfter" DECIMAL(78,0) NOT NULL,
    "transferCode" "TransferCode" NOT NULL,
    "flowId" BIGINT,
    "timestampUs" BIGINT NOT NULL,
    "symbolId" INTEGER,
    "matchId" BIGINT,
    "txId" TEXT,
    "sourceAccountId" BIGINT,
    "sourceAddress" TEXT,
    "sourceChainId" INTEGER,
    "sourceKind" "TransferSideKind",
    "destinationAccountId" BIGINT,
    "destinationAddress" TEXT,
    "destinationChainId" INTEGER,
    "destinationKind" "TransferSideKind",
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LedgerTransferLeg_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Order" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "accountId" BIGINT NOT NULL,
    "symbolId" INTEGER NOT NULL,
    "clientOrderId" TEXT,
    "side" "Side" NOT NULL,
    "orderType" "OrderType" NOT NULL,
    "tif" "TimeInForce" NOT NULL,
    "status" "OrderStatus" NOT NULL,
    "isOpen" BOOLEAN NOT NULL,
    "closeReason" "OrderCloseReason",
    "price" BIGINT NOT NULL DEFAULT 0,
    "origQty" BIGINT NOT NULL,
    "cumQty" BIGINT NOT NULL DEFAULT 0,
    "leavesQty" BIGINT NOT NULL,
    "inheritedCumQty" BIGINT NOT NULL DEFAULT 0,
    "cumNotionalQ9" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "feeAsset" "FeeAsset" NOT NULL DEFAULT 'QUOTE',
    "postOnly" BOOLEAN NOT NULL DEFAULT false,
    "stpMode" "StpMode" NOT NULL DEFAULT 'EXPIRE_MAKER',
    "expireAt" TIMESTAMPTZ(6),
    "expireAtTsNs" BIGINT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acceptedAtTsNs" BIGINT NOT NULL,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "terminalAt" TIMESTAMPTZ(6),
    "batchRequestId" TEXT,
    "lineageId" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 1,
    "replacesOrderId" BIGINT,
    "originScope" "OrderOriginScope" NOT NULL DEFAULT 'DIRECT',
    "parentOrderId" BIGINT,
    "originTriggerId" BIGINT,
    "originTriggerType" "TriggerType",
    "childSeq" INTEGER NOT NULL DEFAULT 0,
    "marketClientRefPrice" BIGINT,
    "marketMaxSlippageBps" INTEGER,
    "marketMaxSlippageTicks" INTEGER,
    "submittedMaxQuoteDebit" BIGINT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "heldE18" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "prioritySeq" BIGINT NOT NULL,
    "oco" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Order_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClientOrderIdReservation" (
    "id" BIGSERIAL NOT NULL,
    "accountId" BIGINT NOT NULL,
    "clientOrderId" TEXT NOT NULL,
    "orderId" BIGINT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(6),

    CONSTRAINT "ClientOrderIdReservation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AttachedRiskLeg" (
    "id" BIGSERIAL NOT NULL,
    "orderId" BIGINT NOT NULL,
    "kind" "AttachedRiskLegKind" NOT NULL,
    "triggerPrice" BIGINT,
    "childKind" "ChildOrderKind" NOT NULL DEFAULT 'MARKET_IOC',
    "childLimitPrice" BIGINT,
    "childPostOnly" BOOLEAN NOT NULL DEFAULT false,
    "activationPrice" BIGINT,
    "maxSlippageTicks" INTEGER,
    "maxSlippageBps" INTEGER,
    "trailingDistanceTicks" BIGINT,
    "trailingDistanceBps" INTEGER,
    "status" "AttachedRiskLegStatus" NOT NULL DEFAULT 'PENDING',
    "armedAt" TIMESTAMPTZ(6),
    "terminalAt" TIMESTAMPTZ(6),
    "childOrderId" BIGINT,
    "triggerId" BIGINT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AttachedRiskLeg_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Trade" (
    "id" BIGSERIAL NOT NULL,
    "symbolId" INTEGER NOT NULL,
    "matchId" BIGINT NOT NULL,
    "orderId" BIGINT NOT NULL,
    "accountId" BIGINT NOT NULL,
    "lineageId" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "side" "Side" NOT NULL,
    "price" BIGINT NOT NULL,
    "qty" BIGINT NOT NULL,
    "isMaker" BOOLEAN NOT NULL,
    "fee" DECIMAL(78,0) NOT NULL,
    "feeAsset" "FeeAsset" NOT NULL,
    "feeIsRebate" BOOLEAN NOT NULL DEFAULT false,
    "referralShare" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "executedAt" TIMESTAMPTZ(6) NOT NULL,
    "executedAtTsNs" BIGINT NOT NULL,
    "transferId" BIGINT,

    CONSTRAINT "Trade_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Trigger" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "accountId" BIGINT NOT NULL,
    "clientTriggerId" TEXT,
    "symbolId" INTEGER NOT NULL,
    "triggerType" "TriggerType" NOT NULL,
    "status" "TriggerStatus" NOT NULL DEFAULT 'CREATED',
    "side" "Side" NOT NULL,
    "qty" BIGINT NOT NULL,
    "feeAsset" "FeeAsset" NOT NULL DEFAULT 'QUOTE',
    "stpMode" "StpMode" NOT NULL DEFAULT 'EXPIRE_MAKER',
    "parentOrderId" BIGINT,
    "cancelReason" "TriggerCancelReason",
    "failureReason" "TriggerFailureReason",
    "triggerDirection" "TriggerDirection",
    "triggerPrice" BIGINT,
    "triggerPriceSource" "TriggerPriceSource" NOT NULL DEFAULT 'LAST_PRICE',
    "childKind" "ChildOrderKind" NOT NULL DEFAULT 'MARKET_IOC',
    "childLimitPrice" BIGINT,
    "childPostOnly" BOOLEAN NOT NULL DEFAULT false,
    "maxSlippageTicks" INTEGER,
    "maxSlippageBps" INTEGER,
    "params" JSONB NOT NULL DEFAULT '{}',
    "state" JSONB NOT NULL DEFAULT '{}',
    "cumFilledQty" BIGINT NOT NULL DEFAULT 0,
    "lastChildSeq" INTEGER NOT NULL DEFAULT 0,
    "nextFireAtTsNs" BIGINT,
    "firePx" BIGINT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "acceptedAtTsNs" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "armedAt" TIMESTAMPTZ(6),
    "completedAt" TIMESTAMPTZ(6),
    "terminalAt" TIMESTAMPTZ(6),

    CONSTRAINT "Trigger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TriggerEvent" (
    "id" BIGSERIAL NOT NULL,
    "triggerId" BIGINT NOT NULL,
    "eventType" "TriggerEventType" NOT NULL,
    "triggerType" "TriggerType" NOT NULL,
    "accountId" BIGINT NOT NULL,
    "symbolId" INTEGER NOT NULL,
    "childOrderId" BIGINT,
    "childSeq" INTEGER NOT NULL DEFAULT 0,
    "firePx" BIGINT,
    "cancelReason" "TriggerCancelReason",
    "failureReason" "TriggerFailureReason",
    "tsNs" BIGINT NOT NULL,
    "details" JSONB,

    CONSTRAINT "TriggerEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DeadManSwitch" (
    "id" BIGSERIAL NOT NULL,
    "accountId" BIGINT NOT NULL,
    "symbolId" INTEGER NOT NULL DEFAULT 0,
    "side" "SideScope" NOT NULL DEFAULT 'ANY',
    "status" "DeadManSwitchStatus" NOT NULL,
    "timeoutSec" INTEGER NOT NULL DEFAULT 0,
    "expiresAtTsNs" BIGINT NOT NULL DEFAULT 0,
    "requestId" TEXT NOT NULL,
    "armedAt" TIMESTAMPTZ(6),
    "lastFiredAtTsNs" BIGINT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DeadManSwitch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LifecycleFlow" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "rootAccountId" BIGINT NOT NULL,
    "smartAccountAddress" TEXT,
    "flowKind" "FlowKind" NOT NULL,
    "flowState" "FlowState" NOT NULL,
    "currentStep" "FlowStep" NOT NULL,
    "currentStepSequence" INTEGER NOT NULL DEFAULT 1,
    "unifiedAssetId" INTEGER,
    "zippedAssetId" INTEGER,
    "amountE18" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "serviceChainId" INTEGER,
    "sourceDomain" "FlowDomain" NOT NULL,
    "destinationDomain" "FlowDomain" NOT NULL,
    "sourceAddress" TEXT,
    "destinationAddress" TEXT,
    "sourceTxHash" TEXT,
    "latestTxRef" TEXT,
    "txOccurrenceIndex" TEXT,
    "latestLifecycleSource" "LifecycleSource",
    "lifecycleReason" "LifecycleReason",
    "zipperReason" JSONB,
    "isOpen" BOOLEAN NOT NULL DEFAULT true,
    "isTerminal" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" TIMESTAMPTZ(6) NOT NULL,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,
    "lastActivityAt" TIMESTAMPTZ(6) NOT NULL,
    "terminalAt" TIMESTAMPTZ(6),
    "estimatedCompletionAt" TIMESTAMPTZ(6),
    "currentProgress" JSONB NOT NULL DEFAULT '{}',
    "progressTimeline" JSONB NOT NULL DEFAULT '[]',
    "requestFee" JSONB,
    "depositAddressId" BIGINT,
    "version" BIGINT NOT NULL DEFAULT 1,

    CONSTRAINT "LifecycleFlow_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DepositAddress" (
    "id" BIGSERIAL NOT NULL,
    "accountId" BIGINT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "derivationPath" TEXT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DepositAddress_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WithdrawIntent" (
    "id" BIGSERIAL NOT NULL,
    "publicId" TEXT NOT NULL,
    "accountId" BIGINT NOT NULL,
    "action" "WithdrawAction" NOT NULL,
    "authorization" "WithdrawAuthorization" NOT NULL,
    "apiKeyId" BIGINT,
    "signerWallet" TEXT,
    "amount" DECIMAL(78,0) NOT NULL,
    "assetId" INTEGER NOT NULL,
    "deadlineTsSec" BIGINT NOT NULL,
    "destinationAddress" TEXT,
    "destinationChainId" INTEGER,
    "destinationAccountId" BIGINT,
    "idempotencyKey" TEXT NOT NULL,
    "nonce" DECIMAL(39,0) NOT NULL,
    "payload" BYTEA NOT NULL,
    "payloadHash" BYTEA NOT NULL,
    "payloadSignature" BYTEA NOT NULL,
    "status" "WithdrawIntentStatus" NOT NULL DEFAULT 'ACCEPTED',
    "failureReason" TEXT,
    "flowId" BIGINT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WithdrawIntent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Layout" (
    "id" BIGSERIAL NOT NULL,
    "viewerAccountId" BIGINT NOT NULL,
    "layoutId" BIGINT NOT NULL,
    "name" TEXT NOT NULL,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "panelViewState" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Layout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LayoutWidget" (
    "id" BIGSERIAL NOT NULL,
    "viewerAccountId" BIGINT NOT NULL,
    "layoutId" BIGINT NOT NULL,
    "widgetId" TEXT NOT NULL,
    "widgetType" "WidgetType" NOT NULL,
    "widgetConfig" BYTEA NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "LayoutWidget_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LayoutTemplate" (
    "id" BIGSERIAL NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "templateId" TEXT NOT NULL,
    "sourceLayoutId" BIGINT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "tags" TEXT[],
    "isListed" BOOLEAN NOT NULL DEFAULT false,
    "latestVersion" INTEGER NOT NULL DEFAULT 1,
    "publishedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LayoutTemplate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LayoutTemplateVersion" (
    "id" BIGSERIAL NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "templateId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "changelog" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "tags" TEXT[],
    "layoutName" TEXT NOT NULL,
    "panelViewState" BYTEA NOT NULL,
    "widgets" JSONB NOT NULL,
    "publishedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LayoutTemplateVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChartLayer" (
    "id" BIGSERIAL NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "layerId" TEXT NOT NULL,
    "engineSymbolId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "sortHint" INTEGER NOT NULL DEFAULT 0,
    "colorRgba" BIGINT NOT NULL DEFAULT 0,
    "useLayerColor" BOOLEAN NOT NULL DEFAULT false,
    "isLocked" BOOLEAN NOT NULL DEFAULT false,
    "isVisible" BOOLEAN NOT NULL DEFAULT true,
    "revision" BIGINT NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChartLayer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChartDrawing" (
    "id" BIGSERIAL NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "drawingId" TEXT NOT NULL,
    "layerOwnerAccountId" BIGINT NOT NULL,
    "layerId" TEXT NOT NULL,
    "engineSymbolId" INTEGER NOT NULL,
    "type" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "payload" BYTEA NOT NULL,
    "bboxTimeMinMs" BIGINT NOT NULL DEFAULT 0,
    "bboxTimeMaxMs" BIGINT NOT NULL DEFAULT 0,
    "bboxPriceMin" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "bboxPriceMax" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(6),
    "clientUpdatedAtMs" BIGINT NOT NULL,
    "layerRevision" BIGINT NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChartDrawing_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Whiteboard" (
    "id" BIGSERIAL NOT NULL,
    "boardId" UUID NOT NULL,
    "ownerAccountId" BIGINT NOT NULL,
    "title" TEXT NOT NULL,
    "audience" "WhiteboardAudience" NOT NULL DEFAULT 'PRIVATE',
    "defaultRole" "WhiteboardRole" NOT NULL DEFAULT 'VIEWER',
    "accessVersion" BIGINT NOT NULL DEFAULT 1,
    "initialSnapshot" JSONB NOT NULL DEFAULT '{"elements":[],"version":0}',
    "yjsState" BYTEA,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" TIMESTAMPTZ(6),

    CONSTRAINT "Whiteboard_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WhiteboardAclEntry" (
    "id" BIGSERIAL NOT NULL,
    "whiteboardId" BIGINT NOT NULL,
    "principalAccountId" BIGINT NOT NULL,
    "role" "WhiteboardRole" NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WhiteboardAclEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WhiteboardUpdate" (
    "id" BIGSERIAL NOT NULL,
    "whiteboardId" BIGINT NOT NULL,
    "update" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WhiteboardUpdate_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Account_publicId_key" ON "Account"("publicId");

-- CreateIndex
CREATE UNIQUE INDEX "Account_walletAddress_key" ON "Account"("walletAddress");

-- CreateIndex
CREATE UNIQUE INDEX "Account_smartAccountAddress_key" ON "Account"("smartAccountAddress");

-- CreateIndex
CREATE UNIQUE INDEX "Account_username_key" ON "Account"("username");

-- CreateIndex
CREATE UNIQUE INDEX "Account_systemRole_key" ON "Account"("systemRole");

-- CreateIndex
CREATE INDEX "Account_rootAccountId_createdAt_id_idx" ON "Account"("rootAccountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Account_referredByAccountId_idx" ON "Account"("referredByAccountId");

-- CreateIndex
CREATE UNIQUE INDEX "TermsAcceptance_accountId_version_key" ON "TermsAcceptance"("accountId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "WalletNonce_nonce_key" ON "WalletNonce"("nonce");

-- CreateIndex
CREATE INDEX "WalletNonce_address_createdAt_idx" ON "WalletNonce"("address", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "WalletNonce_expiresAt_idx" ON "WalletNonce"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Session_tokenHash_key" ON "Session"("tokenHash");

-- CreateIndex
CREATE INDEX "Session_accountId_createdAt_id_idx" ON "Session"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Session_expiresAt_idx" ON "Session"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApiPolicy_policyId_key" ON "ApiPolicy"("policyId");

-- CreateIndex
CREATE INDEX "ApiPolicy_ownerAccountId_createdAt_id_idx" ON "ApiPolicy"("ownerAccountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyId_key" ON "ApiKey"("keyId");

-- CreateIndex
CREATE INDEX "ApiKey_rootAccountId_createdAt_id_idx" ON "ApiKey"("rootAccountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "ApiKey_subaccountId_idx" ON "ApiKey"("subaccountId");

-- CreateIndex
CREATE INDEX "ApiKey_policyId_idx" ON "ApiKey"("policyId");

-- CreateIndex
CREATE INDEX "RateLimitOverride_accountId_idx" ON "RateLimitOverride"("accountId");

-- CreateIndex
CREATE INDEX "RateLimitOverride_apiKeyId_idx" ON "RateLimitOverride"("apiKeyId");

-- CreateIndex
CREATE UNIQUE INDEX "RateLimitOverride_pool_accountId_key" ON "RateLimitOverride"("pool", "accountId");

-- CreateIndex
CREATE UNIQUE INDEX "RateLimitOverride_pool_apiKeyId_key" ON "RateLimitOverride"("pool", "apiKeyId");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_expiresAt_idx" ON "IdempotencyRecord"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "IdempotencyRecord_accountId_operation_key_key" ON "IdempotencyRecord"("accountId", "operation", "key");

-- CreateIndex
CREATE UNIQUE INDEX "AddressBookEntry_publicId_key" ON "AddressBookEntry"("publicId");

-- CreateIndex
CREATE INDEX "AddressBookEntry_scopeAccountId_createdAt_id_idx" ON "AddressBookEntry"("scopeAccountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AddressBookEntry_scopeAccountId_kind_createdAt_id_idx" ON "AddressBookEntry"("scopeAccountId", "kind", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AddressBookEntry_rootAccountId_idx" ON "AddressBookEntry"("rootAccountId");

-- CreateIndex
CREATE INDEX "AddressBookEntry_internalAccountId_idx" ON "AddressBookEntry"("internalAccountId");

-- CreateIndex
CREATE UNIQUE INDEX "AddressBookTag_publicId_key" ON "AddressBookTag"("publicId");

-- CreateIndex
CREATE INDEX "AddressBookTag_scopeAccountId_createdAt_id_idx" ON "AddressBookTag"("scopeAccountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AddressBookTag_rootAccountId_idx" ON "AddressBookTag"("rootAccountId");

-- CreateIndex
CREATE UNIQUE INDEX "AddressBookTag_scopeAccountId_name_key" ON "AddressBookTag"("scopeAccountId", "name");

-- CreateIndex
CREATE INDEX "AddressBookEntryTag_tagId_idx" ON "AddressBookEntryTag"("tagId");

-- CreateIndex
CREATE UNIQUE INDEX "Chain_chainId_key" ON "Chain"("chainId");

-- CreateIndex
CREATE UNIQUE INDEX "Asset_unifiedAssetId_key" ON "Asset"("unifiedAssetId");

-- CreateIndex
CREATE UNIQUE INDEX "Asset_symbol_key" ON "Asset"("symbol");

-- CreateIndex
CREATE UNIQUE INDEX "ChainAsset_zippedAssetId_key" ON "ChainAsset"("zippedAssetId");

-- CreateIndex
CREATE INDEX "ChainAsset_unifiedAssetId_idx" ON "ChainAsset"("unifiedAssetId");

-- CreateIndex
CREATE UNIQUE INDEX "ChainAsset_chainId_unifiedAssetId_key" ON "ChainAsset"("chainId", "unifiedAssetId");

-- CreateIndex
CREATE UNIQUE INDEX "Market_symbolId_key" ON "Market"("symbolId");

-- CreateIndex
CREATE UNIQUE INDEX "Market_symbol_key" ON "Market"("symbol");

-- CreateIndex
CREATE UNIQUE INDEX "MarketFeeTier_symbolId_vipTier_key" ON "MarketFeeTier"("symbolId", "vipTier");

-- CreateIndex
CREATE UNIQUE INDEX "MarketSequence_symbolId_key" ON "MarketSequence"("symbolId");

-- CreateIndex
CREATE UNIQUE INDEX "Balance_accountId_ledgerAccount_assetId_key" ON "Balance"("accountId", "ledgerAccount", "assetId");

-- CreateIndex
CREATE INDEX "LedgerTransfer_flowId_idx" ON "LedgerTransfer"("flowId");

-- CreateIndex
CREATE INDEX "LedgerTransfer_symbolId_matchId_idx" ON "LedgerTransfer"("symbolId", "matchId");

-- CreateIndex
CREATE INDEX "LedgerTransferLeg_accountId_timestampUs_id_idx" ON "LedgerTransferLeg"("accountId", "timestampUs", "id");

-- CreateIndex
CREATE INDEX "LedgerTransferLeg_accountId_ledgerAccount_assetId_timestamp_idx" ON "LedgerTransferLeg"("accountId", "ledgerAccount", "assetId", "timestampUs", "id");

-- CreateIndex
CREATE INDEX "LedgerTransferLeg_accountId_assetId_timestampUs_id_idx" ON "LedgerTransferLeg"("accountId", "assetId", "timestampUs", "id");

-- CreateIndex
CREATE INDEX "LedgerTransferLeg_transferId_idx" ON "LedgerTransferLeg"("transferId");

-- CreateIndex
CREATE INDEX "LedgerTransferLeg_symbolId_matchId_idx" ON "LedgerTransferLeg"("symbolId", "matchId");

-- CreateIndex
CREATE INDEX "LedgerTransferLeg_flowId_idx" ON "LedgerTransferLeg"("flowId");

-- CreateIndex
CREATE UNIQUE INDEX "Order_publicId_key" ON "Order"("publicId");

-- CreateIndex
CREATE UNIQUE INDEX "Order_replacesOrderId_key" ON "Order"("replacesOrderId");

-- CreateIndex
CREATE INDEX "Order_accountId_isOpen_createdAt_id_idx" ON "Order"("accountId", "isOpen", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Order_accountId_isOpen_symbolId_side_createdAt_id_idx" ON "Order"("accountId", "isOpen", "symbolId", "side", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Order_symbolId_isOpen_prioritySeq_idx" ON "Order"("symbolId", "isOpen", "prioritySeq");

-- CreateIndex
CREATE INDEX "Order_accountId_createdAt_id_idx" ON "Order"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Order_accountId_lineageId_generation_idx" ON "Order"("accountId", "lineageId", "generation");

-- CreateIndex
CREATE INDEX "Order_accountId_clientOrderId_idx" ON "Order"("accountId", "clientOrderId");

-- CreateIndex
CREATE INDEX "Order_originTriggerId_idx" ON "Order"("originTriggerId");

-- CreateIndex
CREATE INDEX "Order_parentOrderId_idx" ON "Order"("parentOrderId");

-- CreateIndex
CREATE UNIQUE INDEX "ClientOrderIdReservation_orderId_key" ON "ClientOrderIdReservation"("orderId");

-- CreateIndex
CREATE INDEX "ClientOrderIdReservation_expiresAt_idx" ON "ClientOrderIdReservation"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ClientOrderIdReservation_accountId_clientOrderId_key" ON "ClientOrderIdReservation"("accountId", "clientOrderId");

-- CreateIndex
CREATE UNIQUE INDEX "AttachedRiskLeg_triggerId_key" ON "AttachedRiskLeg"("triggerId");

-- CreateIndex
CREATE INDEX "AttachedRiskLeg_childOrderId_idx" ON "AttachedRiskLeg"("childOrderId");

-- CreateIndex
CREATE UNIQUE INDEX "AttachedRiskLeg_orderId_kind_key" ON "AttachedRiskLeg"("orderId", "kind");

-- CreateIndex
CREATE INDEX "Trade_accountId_executedAtTsNs_id_idx" ON "Trade"("accountId", "executedAtTsNs" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Trade_accountId_symbolId_matchId_idx" ON "Trade"("accountId", "symbolId", "matchId" DESC);

-- CreateIndex
CREATE INDEX "Trade_orderId_id_idx" ON "Trade"("orderId", "id");

-- CreateIndex
CREATE INDEX "Trade_accountId_lineageId_generation_id_idx" ON "Trade"("accountId", "lineageId", "generation", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Trade_symbolId_matchId_isMaker_key" ON "Trade"("symbolId", "matchId", "isMaker");

-- CreateIndex
CREATE UNIQUE INDEX "Trigger_publicId_key" ON "Trigger"("publicId");

-- CreateIndex
CREATE INDEX "Trigger_accountId_createdAt_id_idx" ON "Trigger"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Trigger_accountId_status_createdAt_id_idx" ON "Trigger"("accountId", "status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Trigger_accountId_symbolId_createdAt_id_idx" ON "Trigger"("accountId", "symbolId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Trigger_parentOrderId_idx" ON "Trigger"("parentOrderId");

-- CreateIndex
CREATE INDEX "Trigger_symbolId_status_idx" ON "Trigger"("symbolId", "status");

-- CreateIndex
CREATE INDEX "Trigger_status_nextFireAtTsNs_idx" ON "Trigger"("status", "nextFireAtTsNs");

-- CreateIndex
CREATE UNIQUE INDEX "Trigger_accountId_clientTriggerId_key" ON "Trigger"("accountId", "clientTriggerId");

-- CreateIndex
CREATE INDEX "TriggerEvent_triggerId_tsNs_id_idx" ON "TriggerEvent"("triggerId", "tsNs" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "TriggerEvent_triggerId_eventType_tsNs_id_idx" ON "TriggerEvent"("triggerId", "eventType", "tsNs" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "TriggerEvent_childOrderId_idx" ON "TriggerEvent"("childOrderId");

-- CreateIndex
CREATE INDEX "TriggerEvent_accountId_idx" ON "TriggerEvent"("accountId");

-- CreateIndex
CREATE INDEX "DeadManSwitch_status_expiresAtTsNs_idx" ON "DeadManSwitch"("status", "expiresAtTsNs");

-- CreateIndex
CREATE UNIQUE INDEX "DeadManSwitch_accountId_symbolId_side_key" ON "DeadManSwitch"("accountId", "symbolId", "side");

-- CreateIndex
CREATE UNIQUE INDEX "LifecycleFlow_publicId_key" ON "LifecycleFlow"("publicId");

-- CreateIndex
CREATE INDEX "LifecycleFlow_ownerAccountId_lastActivityAt_id_idx" ON "LifecycleFlow"("ownerAccountId", "lastActivityAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_ownerAccountId_isOpen_lastActivityAt_id_idx" ON "LifecycleFlow"("ownerAccountId", "isOpen", "lastActivityAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_ownerAccountId_startedAt_id_idx" ON "LifecycleFlow"("ownerAccountId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_ownerAccountId_updatedAt_id_idx" ON "LifecycleFlow"("ownerAccountId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_rootAccountId_lastActivityAt_id_idx" ON "LifecycleFlow"("rootAccountId", "lastActivityAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_rootAccountId_isOpen_lastActivityAt_id_idx" ON "LifecycleFlow"("rootAccountId", "isOpen", "lastActivityAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_rootAccountId_startedAt_id_idx" ON "LifecycleFlow"("rootAccountId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_rootAccountId_updatedAt_id_idx" ON "LifecycleFlow"("rootAccountId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_smartAccountAddress_lastActivityAt_id_idx" ON "LifecycleFlow"("smartAccountAddress", "lastActivityAt", "id");

-- CreateIndex
CREATE INDEX "LifecycleFlow_sourceTxHash_idx" ON "LifecycleFlow"("sourceTxHash");

-- CreateIndex
CREATE INDEX "LifecycleFlow_latestTxRef_idx" ON "LifecycleFlow"("latestTxRef");

-- CreateIndex
CREATE INDEX "LifecycleFlow_depositAddressId_idx" ON "LifecycleFlow"("depositAddressId");

-- CreateIndex
CREATE UNIQUE INDEX "LifecycleFlow_flowKind_serviceChainId_sourceTxHash_txOccurr_key" ON "LifecycleFlow"("flowKind", "serviceChainId", "sourceTxHash", "txOccurrenceIndex");

-- CreateIndex
CREATE UNIQUE INDEX "DepositAddress_accountId_chainId_key" ON "DepositAddress"("accountId", "chainId");

-- CreateIndex
CREATE UNIQUE INDEX "DepositAddress_chainId_address_key" ON "DepositAddress"("chainId", "address");

-- CreateIndex
CREATE UNIQUE INDEX "WithdrawIntent_publicId_key" ON "WithdrawIntent"("publicId");

-- CreateIndex
CREATE UNIQUE INDEX "WithdrawIntent_flowId_key" ON "WithdrawIntent"("flowId");

-- CreateIndex
CREATE INDEX "WithdrawIntent_accountId_createdAt_id_idx" ON "WithdrawIntent"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "WithdrawIntent_status_createdAt_idx" ON "WithdrawIntent"("status", "createdAt");

-- CreateIndex
CREATE INDEX "WithdrawIntent_apiKeyId_idx" ON "WithdrawIntent"("apiKeyId");

-- CreateIndex
CREATE UNIQUE INDEX "WithdrawIntent_accountId_idempotencyKey_key" ON "WithdrawIntent"("accountId", "idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "WithdrawIntent_accountId_nonce_key" ON "WithdrawIntent"("accountId", "nonce");

-- CreateIndex
CREATE INDEX "Layout_viewerAccountId_updatedAt_id_idx" ON "Layout"("viewerAccountId", "updatedAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Layout_viewerAccountId_layoutId_key" ON "Layout"("viewerAccountId", "layoutId");

-- CreateIndex
CREATE UNIQUE INDEX "LayoutWidget_viewerAccountId_layoutId_widgetId_key" ON "LayoutWidget"("viewerAccountId", "layoutId", "widgetId");

-- CreateIndex
CREATE INDEX "LayoutTemplate_ownerAccountId_updatedAt_id_idx" ON "LayoutTemplate"("ownerAccountId", "updatedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "LayoutTemplate_isListed_updatedAt_id_idx" ON "LayoutTemplate"("isListed", "updatedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "LayoutTemplate_tags_idx" ON "LayoutTemplate" USING GIN ("tags");

-- CreateIndex
CREATE UNIQUE INDEX "LayoutTemplate_ownerAccountId_templateId_key" ON "LayoutTemplate"("ownerAccountId", "templateId");

-- CreateIndex
CREATE UNIQUE INDEX "LayoutTemplate_ownerAccountId_sourceLayoutId_key" ON "LayoutTemplate"("ownerAccountId", "sourceLayoutId");

-- CreateIndex
CREATE UNIQUE INDEX "LayoutTemplateVersion_ownerAccountId_templateId_version_key" ON "LayoutTemplateVersion"("ownerAccountId", "templateId", "version");

-- CreateIndex
CREATE INDEX "ChartLayer_ownerAccountId_engineSymbolId_sortHint_id_idx" ON "ChartLayer"("ownerAccountId", "engineSymbolId", "sortHint", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ChartLayer_ownerAccountId_layerId_key" ON "ChartLayer"("ownerAccountId", "layerId");

-- CreateIndex
CREATE INDEX "ChartDrawing_layerOwnerAccountId_layerId_layerRevision_idx" ON "ChartDrawing"("layerOwnerAccountId", "layerId", "layerRevision");

-- CreateIndex
CREATE INDEX "ChartDrawing_ownerAccountId_engineSymbolId_updatedAt_idx" ON "ChartDrawing"("ownerAccountId", "engineSymbolId", "updatedAt");

-- CreateIndex
CREATE UNIQUE INDEX "ChartDrawing_ownerAccountId_drawingId_key" ON "ChartDrawing"("ownerAccountId", "drawingId");

-- CreateIndex
CREATE UNIQUE INDEX "Whiteboard_boardId_key" ON "Whiteboard"("boardId");

-- CreateIndex
CREATE INDEX "Whiteboard_ownerAccountId_updatedAt_id_idx" ON "Whiteboard"("ownerAccountId", "updatedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Whiteboard_audience_updatedAt_id_idx" ON "Whiteboard"("audience", "updatedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Whiteboard_updatedAt_id_idx" ON "Whiteboard"("updatedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "WhiteboardAclEntry_principalAccountId_whiteboardId_idx" ON "WhiteboardAclEntry"("principalAccountId", "whiteboardId");

-- CreateIndex
CREATE UNIQUE INDEX "WhiteboardAclEntry_whiteboardId_principalAccountId_key" ON "WhiteboardAclEntry"("whiteboardId", "principalAccountId");

-- CreateIndex
CREATE INDEX "WhiteboardUpdate_whiteboardId_id_idx" ON "WhiteboardUpdate"("whiteboardId", "id");

-- AddForeignKey
ALTER TABLE "Account" ADD CONSTRAINT "Account_rootAccountId_fkey" FOREIGN KEY ("rootAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Account" ADD CONSTRAINT "Account_referredByAccountId_fkey" FOREIGN KEY ("referredByAccountId") REFERENCES "Account"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TermsAcceptance" ADD CONSTRAINT "TermsAcceptance_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiPolicy" ADD CONSTRAINT "ApiPolicy_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_rootAccountId_fkey" FOREIGN KEY ("rootAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_subaccountId_fkey" FOREIGN KEY ("subaccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "ApiPolicy"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RateLimitOverride" ADD CONSTRAINT "RateLimitOverride_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RateLimitOverride" ADD CONSTRAINT "RateLimitOverride_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdempotencyRecord" ADD CONSTRAINT "IdempotencyRecord_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookEntry" ADD CONSTRAINT "AddressBookEntry_rootAccountId_fkey" FOREIGN KEY ("rootAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookEntry" ADD CONSTRAINT "AddressBookEntry_scopeAccountId_fkey" FOREIGN KEY ("scopeAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookEntry" ADD CONSTRAINT "AddressBookEntry_internalAccountId_fkey" FOREIGN KEY ("internalAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookTag" ADD CONSTRAINT "AddressBookTag_rootAccountId_fkey" FOREIGN KEY ("rootAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookTag" ADD CONSTRAINT "AddressBookTag_scopeAccountId_fkey" FOREIGN KEY ("scopeAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookEntryTag" ADD CONSTRAINT "AddressBookEntryTag_entryId_fkey" FOREIGN KEY ("entryId") REFERENCES "AddressBookEntry"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AddressBookEntryTag" ADD CONSTRAINT "AddressBookEntryTag_tagId_fkey" FOREIGN KEY ("tagId") REFERENCES "AddressBookTag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChainAsset" ADD CONSTRAINT "ChainAsset_unifiedAssetId_fkey" FOREIGN KEY ("unifiedAssetId") REFERENCES "Asset"("unifiedAssetId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChainAsset" ADD CONSTRAINT "ChainAsset_chainId_fkey" FOREIGN KEY ("chainId") REFERENCES "Chain"("chainId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Market" ADD CONSTRAINT "Market_baseAssetId_fkey" FOREIGN KEY ("baseAssetId") REFERENCES "Asset"("unifiedAssetId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Market" ADD CONSTRAINT "Market_quoteAssetId_fkey" FOREIGN KEY ("quoteAssetId") REFERENCES "Asset"("unifiedAssetId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MarketFeeTier" ADD CONSTRAINT "MarketFeeTier_symbolId_fkey" FOREIGN KEY ("symbolId") REFERENCES "Market"("symbolId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MarketSequence" ADD CONSTRAINT "MarketSequence_symbolId_fkey" FOREIGN KEY ("symbolId") REFERENCES "Market"("symbolId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Balance" ADD CONSTRAINT "Balance_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Balance" ADD CONSTRAINT "Balance_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("unifiedAssetId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerTransfer" ADD CONSTRAINT "LedgerTransfer_flowId_fkey" FOREIGN KEY ("flowId") REFERENCES "LifecycleFlow"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerTransferLeg" ADD CONSTRAINT "LedgerTransferLeg_transferId_fkey" FOREIGN KEY ("transferId") REFERENCES "LedgerTransfer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerTransferLeg" ADD CONSTRAINT "LedgerTransferLeg_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerTransferLeg" ADD CONSTRAINT "LedgerTransferLeg_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("unifiedAssetId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerTransferLeg" ADD CONSTRAINT "LedgerTransferLeg_sourceAccountId_fkey" FOREIGN KEY ("sourceAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerTransferLeg" ADD CONSTRAINT "LedgerTransferLeg_destinationAccountId_fkey" FOREIGN KEY ("destinationAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_symbolId_fkey" FOREIGN KEY ("symbolId") REFERENCES "Market"("symbolId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_replacesOrderId_fkey" FOREIGN KEY ("replacesOrderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_parentOrderId_fkey" FOREIGN KEY ("parentOrderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_originTriggerId_fkey" FOREIGN KEY ("originTriggerId") REFERENCES "Trigger"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClientOrderIdReservation" ADD CONSTRAINT "ClientOrderIdReservation_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClientOrderIdReservation" ADD CONSTRAINT "ClientOrderIdReservation_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AttachedRiskLeg" ADD CONSTRAINT "AttachedRiskLeg_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AttachedRiskLeg" ADD CONSTRAINT "AttachedRiskLeg_childOrderId_fkey" FOREIGN KEY ("childOrderId") REFERENCES "Order"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AttachedRiskLeg" ADD CONSTRAINT "AttachedRiskLeg_triggerId_fkey" FOREIGN KEY ("triggerId") REFERENCES "Trigger"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trade" ADD CONSTRAINT "Trade_symbolId_fkey" FOREIGN KEY ("symbolId") REFERENCES "Market"("symbolId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trade" ADD CONSTRAINT "Trade_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trade" ADD CONSTRAINT "Trade_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trade" ADD CONSTRAINT "Trade_transferId_fkey" FOREIGN KEY ("transferId") REFERENCES "LedgerTransfer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trigger" ADD CONSTRAINT "Trigger_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trigger" ADD CONSTRAINT "Trigger_symbolId_fkey" FOREIGN KEY ("symbolId") REFERENCES "Market"("symbolId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trigger" ADD CONSTRAINT "Trigger_parentOrderId_fkey" FOREIGN KEY ("parentOrderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TriggerEvent" ADD CONSTRAINT "TriggerEvent_triggerId_fkey" FOREIGN KEY ("triggerId") REFERENCES "Trigger"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TriggerEvent" ADD CONSTRAINT "TriggerEvent_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TriggerEvent" ADD CONSTRAINT "TriggerEvent_childOrderId_fkey" FOREIGN KEY ("childOrderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeadManSwitch" ADD CONSTRAINT "DeadManSwitch_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LifecycleFlow" ADD CONSTRAINT "LifecycleFlow_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LifecycleFlow" ADD CONSTRAINT "LifecycleFlow_rootAccountId_fkey" FOREIGN KEY ("rootAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LifecycleFlow" ADD CONSTRAINT "LifecycleFlow_depositAddressId_fkey" FOREIGN KEY ("depositAddressId") REFERENCES "DepositAddress"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DepositAddress" ADD CONSTRAINT "DepositAddress_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DepositAddress" ADD CONSTRAINT "DepositAddress_chainId_fkey" FOREIGN KEY ("chainId") REFERENCES "Chain"("chainId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WithdrawIntent" ADD CONSTRAINT "WithdrawIntent_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WithdrawIntent" ADD CONSTRAINT "WithdrawIntent_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WithdrawIntent" ADD CONSTRAINT "WithdrawIntent_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("unifiedAssetId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WithdrawIntent" ADD CONSTRAINT "WithdrawIntent_destinationAccountId_fkey" FOREIGN KEY ("destinationAccountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WithdrawIntent" ADD CONSTRAINT "WithdrawIntent_flowId_fkey" FOREIGN KEY ("flowId") REFERENCES "LifecycleFlow"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Layout" ADD CONSTRAINT "Layout_viewerAccountId_fkey" FOREIGN KEY ("viewerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LayoutWidget" ADD CONSTRAINT "LayoutWidget_viewerAccountId_layoutId_fkey" FOREIGN KEY ("viewerAccountId", "layoutId") REFERENCES "Layout"("viewerAccountId", "layoutId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LayoutTemplate" ADD CONSTRAINT "LayoutTemplate_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LayoutTemplateVersion" ADD CONSTRAINT "LayoutTemplateVersion_ownerAccountId_templateId_fkey" FOREIGN KEY ("ownerAccountId", "templateId") REFERENCES "LayoutTemplate"("ownerAccountId", "templateId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChartLayer" ADD CONSTRAINT "ChartLayer_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChartDrawing" ADD CONSTRAINT "ChartDrawing_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChartDrawing" ADD CONSTRAINT "ChartDrawing_layerOwnerAccountId_layerId_fkey" FOREIGN KEY ("layerOwnerAccountId", "layerId") REFERENCES "ChartLayer"("ownerAccountId", "layerId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Whiteboard" ADD CONSTRAINT "Whiteboard_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WhiteboardAclEntry" ADD CONSTRAINT "WhiteboardAclEntry_whiteboardId_fkey" FOREIGN KEY ("whiteboardId") REFERENCES "Whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WhiteboardAclEntry" ADD CONSTRAINT "WhiteboardAclEntry_principalAccountId_fkey" FOREIGN KEY ("principalAccountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WhiteboardUpdate" ADD CONSTRAINT "WhiteboardUpdate_whiteboardId_fkey" FOREIGN KEY ("whiteboardId") REFERENCES "Whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;
