-- The demo organisation: who reports to whom, and each person's benefits
-- record. Loaded once, when a story's store is created.
INSERT INTO employees (id, name, manager, fields) VALUES
  ('h100', 'Hedy Lamarr', NULL, '{"plan": "Gold", "dental": "yes", "vision": "yes", "ssn": "900-00-0100"}'),
  ('e1001', 'Ada Lovelace', 'h100', '{"plan": "Silver", "dental": "yes", "vision": "no", "ssn": "900-00-1001"}'),
  ('e1002', 'Grace Hopper', 'h100', '{"plan": "Gold", "dental": "no", "vision": "yes", "ssn": "900-00-1002"}'),
  ('e1004', 'Alan Turing', 'e1002', '{"plan": "Bronze", "dental": "yes", "vision": "yes", "ssn": "900-00-1004"}'),
  ('m200', 'Barbara Liskov', NULL, '{"plan": "Gold", "dental": "yes", "vision": "yes", "ssn": "900-00-0200"}'),
  ('e1003', 'Edsger Dijkstra', 'm200', '{"plan": "Silver", "dental": "no", "vision": "no", "ssn": "900-00-1003"}');
