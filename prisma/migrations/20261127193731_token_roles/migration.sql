-- Least-privilege roles (issue 31, ADR 0044): erp pushes, webshop reads and acknowledges its feed,
-- viewer only reads. Existing tokens keep their role (integration or admin); nothing is rewritten.
ALTER TYPE "token_role" ADD VALUE 'erp';
ALTER TYPE "token_role" ADD VALUE 'webshop';
ALTER TYPE "token_role" ADD VALUE 'viewer';
